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

/// Error manager: the libjpeg one, a jump target, the fatal message, and the first warning
/// that means the data is damaged (truncated, corrupt entropy data).
typedef struct vt_jpeg_errors {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char message[JMSG_LENGTH_MAX];
    int damageCode;              // 0, or the J_MESSAGE_CODE of the first damage warning
    char damage[JMSG_LENGTH_MAX];
} vt_jpeg_errors;

static void vt_jpeg_error_exit(j_common_ptr info) {
    vt_jpeg_errors *e = (vt_jpeg_errors *)info->err;
    (*info->err->format_message)(info, e->message);
    longjmp(e->jump, 1);
}

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
    }
}

/// Whether a damage code means the data ended early.
static inline int vt_jpeg_is_truncation(int code) { return code == JWRN_JPEG_EOF; }

/// A decompressor with its error manager.
typedef struct vt_jpeg_reader {
    struct jpeg_decompress_struct info;
    vt_jpeg_errors errors;
    jvirt_barray_ptr *coefficients;
    int created;
} vt_jpeg_reader;

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
