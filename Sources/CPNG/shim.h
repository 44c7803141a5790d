// libpng for Swift: libpng reports errors by longjmp; Swift frames must never be jumped over,
// so reading happens entirely inside this C function, which turns a failure into a return code
// and a message. Writing uses libpng's "simplified" API, which handles errors itself.
// Editing this header: SwiftPM does not see changes to a system library's header, so the Swift
// modules that inline these functions (MediaIO, the fuzz targets) keep the old code until one
// of their Swift files changes; touch one (or build clean) before testing an edit.
#ifndef VISIONTASKS_CPNG_SHIM_H
#define VISIONTASKS_CPNG_SHIM_H
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <setjmp.h>
#include <stdio.h>
#include <png.h>

/// A decoded PNG: 8-bit samples, `channels` (1 grey, 2 grey+alpha, 3 RGB, 4 RGBA) a pixel,
/// rows `stride` bytes apart in a malloc'd buffer (release with vt_png_free).
typedef struct vt_png_image {
    unsigned char *pixels;
    unsigned width, height;
    int channels;
    size_t stride;
    int truncated;       // the data ended before the image did
    size_t largest_request; // the largest allocation libpng asked for (granted or not)
    char message[256];
} vt_png_image;

typedef struct vt_png_source {
    const unsigned char *data;
    size_t size, offset;
    int truncated;
    size_t largest_request;
    char message[256];
} vt_png_source;

/// The most libpng may allocate at once. Its own buffers are two rows (at most 65 535 pixels of
/// 8 bytes) and zlib's state; the image itself is allocated here, not by libpng. A chunk declares
/// its length in 4 bytes, and libpng 1.6 only warns ("chunk data is too large", a benign error)
/// before allocating a text chunk's declared length: a 60-byte file could ask for 2 GB.
#define VT_PNG_MAX_ALLOCATION ((size_t)16 << 20)

static png_voidp vt_png_malloc(png_structp png, png_alloc_size_t size) {
    vt_png_source *s = (vt_png_source *)png_get_mem_ptr(png);
    if (s && size > s->largest_request) s->largest_request = size;
    if (size > VT_PNG_MAX_ALLOCATION) return NULL; // libpng reports it (or skips the chunk)
    return malloc(size);
}

static void vt_png_free_memory(png_structp png, png_voidp pointer) {
    (void)png;
    free(pointer);
}

static void vt_png_read_data(png_structp png, png_bytep out, size_t length) {
    vt_png_source *s = (vt_png_source *)png_get_io_ptr(png);
    if (length > s->size - s->offset) {
        s->truncated = 1;
        png_error(png, "data ends before the image does (truncated file)");
    }
    memcpy(out, s->data + s->offset, length);
    s->offset += length;
}

static void vt_png_error(png_structp png, png_const_charp message) {
    vt_png_source *s = (vt_png_source *)png_get_error_ptr(png);
    strncpy(s->message, message ? message : "unknown libpng error", sizeof s->message - 1);
    s->message[sizeof s->message - 1] = 0;
    png_longjmp(png, 1);
}

static void vt_png_warning(png_structp png, png_const_charp message) {
    (void)png;
    (void)message;
}

/// Decodes a PNG held in memory: palettes and low bit depths are expanded, transparency
/// becomes an alpha channel, 16-bit samples keep their high byte, no gamma is applied.
/// Images wider or taller than `maxSide`, or with more than `maxPixels` pixels, are refused
/// before any pixel memory is allocated. Returns 0 on success.
static inline int vt_png_decode(const unsigned char *data, size_t size, unsigned maxSide,
                                unsigned long long maxPixels, vt_png_image *out) {
    vt_png_source source;
    memset(&source, 0, sizeof source);
    memset(out, 0, sizeof *out);
    source.data = data;
    source.size = size;
    png_structp png = png_create_read_struct_2(PNG_LIBPNG_VER_STRING, &source, vt_png_error,
                                               vt_png_warning, &source, vt_png_malloc,
                                               vt_png_free_memory);
    if (!png) {
        strcpy(out->message, "libpng could not allocate a reader");
        return 1;
    }
    png_infop info = png_create_info_struct(png);
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;
    if (!info || setjmp(png_jmpbuf(png))) {
        memcpy(out->message, source.message, sizeof out->message);
        if (!info) strcpy(out->message, "libpng could not allocate image information");
        out->truncated = source.truncated;
        out->largest_request = source.largest_request;
        free(rows);
        free(pixels);
        png_destroy_read_struct(&png, info ? &info : NULL, NULL);
        return 1;
    }
    png_set_read_fn(png, &source, vt_png_read_data);
    // libpng's own limits (1,000,000 rows or columns by default) would refuse a taller image as
    // "Invalid IHDR data", a damaged file; the check below refuses it as too large instead.
    png_set_user_limits(png, 0x7fffffffU, 0x7fffffffU);
#ifdef PNG_HANDLE_AS_UNKNOWN_SUPPORTED
    // Only the pixels are wanted (and tRNS, which png_set_expand turns into alpha): every other
    // ancillary chunk is skipped unread, so text, ICC profiles, EXIF and palettes of suggestions
    // from untrusted files are neither allocated nor parsed. No gamma or colour conversion is
    // applied, so skipping gAMA, cHRM, sRGB and iCCP does not change a pixel.
    static const png_byte ignored[] = "bKGD\0cHRM\0eXIf\0gAMA\0hIST\0iCCP\0iTXt\0oFFs\0pCAL\0"
                                      "pHYs\0sBIT\0sCAL\0sPLT\0sRGB\0tEXt\0tIME\0zTXt\0";
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, 0);
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, ignored, (int)(sizeof ignored / 5));
#endif
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info);
    png_uint_32 height = png_get_image_height(png, info);
    if (width == 0 || height == 0 || width > maxSide || height > maxSide ||
        (unsigned long long)width * height > maxPixels) {
        snprintf(source.message, sizeof source.message,
                 "image is %ux%u pixels, more than the %u a side / %llu pixels allowed",
                 (unsigned)width, (unsigned)height, maxSide, maxPixels);
        png_longjmp(png, 1);
    }
    png_set_expand(png);
    png_set_strip_16(png);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    int channels = png_get_channels(png, info);
    size_t stride = png_get_rowbytes(png, info);
    if (channels < 1 || channels > 4 || stride != (size_t)width * (size_t)channels) {
        strcpy(source.message, "unsupported PNG sample layout");
        png_longjmp(png, 1);
    }
    pixels = (unsigned char *)malloc(stride * height);
    rows = (png_bytep *)malloc(sizeof(png_bytep) * height);
    if (!pixels || !rows) {
        strcpy(source.message, "out of memory");
        png_longjmp(png, 1);
    }
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + stride * y;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    free(rows);
    png_destroy_read_struct(&png, &info, NULL);
    out->pixels = pixels;
    out->width = width;
    out->height = height;
    out->channels = channels;
    out->stride = stride;
    out->largest_request = source.largest_request;
    return 0;
}

static inline void vt_png_free(vt_png_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}
#endif
