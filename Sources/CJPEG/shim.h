// libjpeg(-turbo) for Swift: libjpeg reports fatal errors by calling error_exit, which must not
// return; the only portable way out is longjmp. Swift frames must never be jumped over, so
// every libjpeg call that can fail is made inside one of these small C functions, which set the
// jump target, call libjpeg, and turn a failure into a return code and a message.
// Editing this header: SwiftPM does not see changes to a system library's header, so the Swift
// modules that inline these functions (MediaIO, the fuzz targets) keep the old code until one
// of their Swift files changes; touch one (or build clean) before testing an edit.
#ifndef VISIONTASKS_CJPEG_SHIM_H
#define VISIONTASKS_CJPEG_SHIM_H
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <jpeglib.h>
#include <jerror.h>

/// The most scans a JPEG may have. Every scan of a progressive JPEG is a pass over the whole
/// image (or one component of it), so a small file that repeats a tiny scan thousands of times
/// took minutes to decode; libjpeg-turbo's own tools (djpeg, tjbench) refuse more than 500. A
/// progressive JPEG from a camera or an encoder has about 10.
#define VT_JPEG_MAX_SCANS 500
/// The most times the scans may go over the image's 8x8 blocks, all components counted: libjpeg's
/// own progressive script goes over them about 6 times, mozjpeg's searched ones not much more.
/// Under the scan limit alone, 500 well-formed scans of one coefficient each (a 53 kB file of
/// 4096x4096 pixels) still took 3 s of a core.
#define VT_JPEG_MAX_PASSES 32

/// Error manager: the libjpeg one, a jump target, the fatal message, the first warning that
/// means the data is damaged (truncated, corrupt entropy data), which ends decoding at once,
/// and whether the scan limit ended it.
typedef struct vt_jpeg_errors {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int damageCode;              // 0, or the J_MESSAGE_CODE of the first damage warning
    char damage[JMSG_LENGTH_MAX];
    int scanLimit;               // 1 when the file has more than VT_JPEG_MAX_SCANS scans
} vt_jpeg_errors;

static void vt_jpeg_error_exit(j_common_ptr info) {
    vt_jpeg_errors *e = (vt_jpeg_errors *)info->err;
    (*info->err->format_message)(info, e->message);
    longjmp(e->jump, 1);
}

/// Warnings are counted; the first one that means damage ends decoding (a longjmp to the
/// caller's setjmp, as an error would): the decoders refuse damaged data anyway, and libjpeg
/// would otherwise read every remaining scan of a file it already knows to be damaged (the
/// "bogus progression" of a file that repeats one scan thousands of times).
static void vt_jpeg_emit_message(j_common_ptr info, int level) {
    vt_jpeg_errors *e = (vt_jpeg_errors *)info->err;
    if (level >= 0) return; // trace messages
    info->err->num_warnings++;
    int code = info->err->msg_code;
    int damage = code == JWRN_JPEG_EOF || code == JWRN_HIT_MARKER || code == JWRN_HUFF_BAD_CODE ||
                 code == JWRN_MUST_RESYNC || code == JWRN_NOT_SEQUENTIAL ||
                 code == JWRN_BOGUS_PROGRESSION || code == JWRN_ARITH_BAD_CODE;
    if (damage && e->damageCode == 0) {
        e->damageCode = code;
        (*info->err->format_message)(info, e->damage);
        memcpy(e->message, e->damage, sizeof e->message);
        longjmp(e->jump, 1);
    }
}

/// Whether a damage code means the data ended early.
static inline int vt_jpeg_is_truncation(int code) { return code == JWRN_JPEG_EOF; }

/// A decompressor with its error manager, and what its progress monitor has seen of the scans.
typedef struct vt_jpeg_reader {
    struct jpeg_decompress_struct info;
    vt_jpeg_errors errors;
    jvirt_barray_ptr *coefficients;
    int created;
    struct jpeg_progress_mgr progress;
    int checkedScan;                         // the last scan number the monitor checked
    unsigned char coded[MAX_COMPONENTS][DCTSIZE2]; // 1 once a scan first coded that coefficient
    unsigned long long scannedBlocks;        // blocks the scans so far go over
} vt_jpeg_reader;

/// libjpeg calls this before each step of reading the scans (jpeg_read_coefficients,
/// jpeg_start_decompress and jpeg_read_scanlines of a multi-scan file), after each SOS it
/// reads, before the scan's data. It ends decoding (longjmp) at scan VT_JPEG_MAX_SCANS + 1, at
/// a scan that would take the passes over the blocks beyond VT_JPEG_MAX_PASSES, and at a scan
/// that codes a coefficient an earlier scan already coded from its first bit (Ah = 0 twice for
/// the same coefficient of the same component): no encoder writes that, libjpeg would silently
/// decode it over the earlier data, and it is how a file repeats a tiny scan without libjpeg's
/// "bogus progression" warning.
static void vt_jpeg_progress_monitor(j_common_ptr common) {
    vt_jpeg_reader *r = (vt_jpeg_reader *)common->client_data;
    struct jpeg_decompress_struct *info = &r->info;
    if (info->input_scan_number == r->checkedScan) return;
    r->checkedScan = info->input_scan_number;
    if (info->input_scan_number > VT_JPEG_MAX_SCANS) {
        r->errors.scanLimit = 1;
        snprintf(r->errors.message, sizeof r->errors.message,
                 "more than %d scans (a progressive JPEG has about 10)", VT_JPEG_MAX_SCANS);
        longjmp(r->errors.jump, 1);
    }
    unsigned long long imageBlocks = 0, scanBlocks = 0;
    for (int c = 0; c < info->num_components && info->comp_info; c++) {
        imageBlocks += (unsigned long long)info->comp_info[c].width_in_blocks * info->comp_info[c].height_in_blocks;
    }
    for (int i = 0; i < info->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        jpeg_component_info *component = info->cur_comp_info[i];
        if (component) scanBlocks += (unsigned long long)component->width_in_blocks * component->height_in_blocks;
    }
    r->scannedBlocks += scanBlocks;
    if (r->scannedBlocks > VT_JPEG_MAX_PASSES * imageBlocks) {
        r->errors.scanLimit = 1;
        snprintf(r->errors.message, sizeof r->errors.message,
                 "scans that go over its 8x8 blocks more than %d times (scan %d; a progressive JPEG goes over them about 6 times)",
                 VT_JPEG_MAX_PASSES, info->input_scan_number);
        longjmp(r->errors.jump, 1);
    }
    if (info->Ah != 0) return; // a refinement scan: libjpeg checks it against the earlier ones
    for (int i = 0; i < info->comps_in_scan && i < MAX_COMPS_IN_SCAN; i++) {
        jpeg_component_info *component = info->cur_comp_info[i];
        if (!component || component->component_index < 0 || component->component_index >= MAX_COMPONENTS) continue;
        unsigned char *coded = r->coded[component->component_index];
        int first = info->Ss < 0 ? 0 : info->Ss;
        int last = info->Se > DCTSIZE2 - 1 ? DCTSIZE2 - 1 : info->Se;
        for (int k = first; k <= last; k++) {
            if (coded[k]) {
                r->errors.damageCode = JWRN_BOGUS_PROGRESSION;
                snprintf(r->errors.damage, sizeof r->errors.damage,
                         "scan %d codes coefficient %d of component %d again, from its first bit",
                         info->input_scan_number, k, component->component_id);
                memcpy(r->errors.message, r->errors.damage, sizeof r->errors.message);
                longjmp(r->errors.jump, 1);
            }
            coded[k] = 1;
        }
    }
}

/// Allocates a reader; NULL when out of memory or libjpeg refuses (message lost).
static inline vt_jpeg_reader *vt_jpeg_reader_create(void) {
    vt_jpeg_reader *r = (vt_jpeg_reader *)calloc(1, sizeof(vt_jpeg_reader));
    if (!r) return NULL;
    r->info.err = jpeg_std_error(&r->errors.base);
    r->errors.base.error_exit = vt_jpeg_error_exit;
    r->errors.base.emit_message = vt_jpeg_emit_message;
    if (setjmp(r->errors.jump)) {
        free(r);
        return NULL;
    }
    jpeg_create_decompress(&r->info);
    r->created = 1;
    r->info.client_data = r;
    r->progress.progress_monitor = vt_jpeg_progress_monitor;
    r->info.progress = &r->progress;
    return r;
}

static inline void vt_jpeg_reader_destroy(vt_jpeg_reader *r) {
    if (!r) return;
    if (r->created && !setjmp(r->errors.jump)) jpeg_destroy_decompress(&r->info);
    free(r);
}

/// Reads the headers from `data` (which must outlive the reader). 0 on success.
static inline int vt_jpeg_read_header(vt_jpeg_reader *r, const unsigned char *data,
                                      unsigned long size) {
    if (setjmp(r->errors.jump)) return 1;
    jpeg_mem_src(&r->info, data, size);
    jpeg_read_header(&r->info, TRUE);
    return 0;
}

/// Entropy-decodes the whole image into quantised DCT coefficients. 0 on success.
static inline int vt_jpeg_read_coefficients(vt_jpeg_reader *r) {
    if (setjmp(r->errors.jump)) return 1;
    r->coefficients = jpeg_read_coefficients(&r->info);
    return r->coefficients ? 0 : 1;
}

/// One row of 8x8 coefficient blocks of component `component`; NULL on error.
static inline JCOEF *vt_jpeg_block_row(vt_jpeg_reader *r, int component, unsigned row) {
    if (setjmp(r->errors.jump)) return NULL;
    JBLOCKARRAY rows = (*r->info.mem->access_virt_barray)((j_common_ptr)&r->info,
                                                          r->coefficients[component], row, 1,
                                                          FALSE);
    return rows ? (JCOEF *)rows[0] : NULL;
}

/// The 64 quantisation steps (natural order) of a component, or 0 if it has no table.
static inline int vt_jpeg_quant_table(vt_jpeg_reader *r, int component, unsigned short out[64]) {
    JQUANT_TBL *t = r->info.comp_info[component].quant_table;
    if (!t) return 0;
    for (int i = 0; i < 64; i++) out[i] = t->quantval[i];
    return 1;
}

/// Starts libjpeg's own decoding pipeline with the given output colour space. 0 on success.
static inline int vt_jpeg_start_decompress(vt_jpeg_reader *r, J_COLOR_SPACE space) {
    if (setjmp(r->errors.jump)) return 1;
    r->info.out_color_space = space;
    jpeg_start_decompress(&r->info);
    return 0;
}

/// Reads the next output scanline into `row`. 0 on success.
static inline int vt_jpeg_read_scanline(vt_jpeg_reader *r, unsigned char *row) {
    if (setjmp(r->errors.jump)) return 1;
    JSAMPROW rows[1] = {row};
    return jpeg_read_scanlines(&r->info, rows, 1) == 1 ? 0 : 1;
}

/// Compresses `height` rows of `components` (1: grey, 3: RGB) bytes a pixel into a new
/// malloc'd buffer (*out, *outSize; free() it). 0 on success, else `message` says why.
static inline int vt_jpeg_compress(const unsigned char *pixels, unsigned width, unsigned height,
                                   size_t stride, int components, int quality,
                                   unsigned char **out, unsigned long *outSize,
                                   char message[JMSG_LENGTH_MAX]) {
    struct jpeg_compress_struct info;
    vt_jpeg_errors errors;
    memset(&errors, 0, sizeof errors);
    *out = NULL;
    *outSize = 0;
    info.err = jpeg_std_error(&errors.base);
    errors.base.error_exit = vt_jpeg_error_exit;
    errors.base.emit_message = vt_jpeg_emit_message;
    if (setjmp(errors.jump)) {
        strncpy(message, errors.message, JMSG_LENGTH_MAX - 1);
        message[JMSG_LENGTH_MAX - 1] = 0;
        jpeg_destroy_compress(&info);
        if (*out) { free(*out); *out = NULL; }
        return 1;
    }
    jpeg_create_compress(&info);
    jpeg_mem_dest(&info, out, outSize);
    info.image_width = width;
    info.image_height = height;
    info.input_components = components;
    info.in_color_space = components == 1 ? JCS_GRAYSCALE : JCS_RGB;
    jpeg_set_defaults(&info);
    jpeg_set_quality(&info, quality, TRUE);
    jpeg_start_compress(&info, TRUE);
    while (info.next_scanline < info.image_height) {
        JSAMPROW row[1] = {(JSAMPROW)(pixels + (size_t)info.next_scanline * stride)};
        jpeg_write_scanlines(&info, row, 1);
    }
    jpeg_finish_compress(&info);
    jpeg_destroy_compress(&info);
    return 0;
}
#endif
