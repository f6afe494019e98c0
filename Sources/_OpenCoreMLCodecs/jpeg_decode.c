#include "OpenCoreMLCodecs.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <setjmp.h>
#include <stdio.h>
#include <jpeglib.h>
#include <jerror.h>

/// libjpeg's error manager plus the place to jump back to and the message to report.
typedef struct {
    struct jpeg_error_mgr base;
    jmp_buf jump;
    char *message;
} ocm_error_manager;

static void ocm_fail(j_common_ptr info) {
    ocm_error_manager *manager = (ocm_error_manager *)info->err;
    char text[JMSG_LENGTH_MAX];
    manager->base.format_message(info, text);
    snprintf(manager->message, sizeof(((ocm_decoded_image *)0)->message), "%s", text);
    longjmp(manager->jump, 1);
}

/// Warnings are ignored except data that ends early, which is fatal: the file ends (JWRN_JPEG_EOF),
/// or a scan's entropy-coded data stops at a marker before its last block (JWRN_HIT_MARKER).
/// libjpeg would pad the rest of the picture with gray, so a few hundred bytes could claim, and
/// fill, half a gigabyte of pixels.
static void ocm_emit_message(j_common_ptr info, int level) {
    if (level < 0 && (info->err->msg_code == JWRN_JPEG_EOF || info->err->msg_code == JWRN_HIT_MARKER)) {
        ocm_fail(info);
    }
}

/// CMYK as Adobe writes it (inverted when `inverted`) to RGB, composited without a colour profile.
static void ocm_cmyk_row_to_rgba(const unsigned char *cmyk, unsigned char *rgba, int width, int inverted) {
    for (int x = 0; x < width; x++) {
        int c = cmyk[4 * x], m = cmyk[4 * x + 1], y = cmyk[4 * x + 2], k = cmyk[4 * x + 3];
        if (!inverted) { c = 255 - c; m = 255 - m; y = 255 - y; k = 255 - k; }
        rgba[4 * x] = (unsigned char)((c * k + 127) / 255);
        rgba[4 * x + 1] = (unsigned char)((m * k + 127) / 255);
        rgba[4 * x + 2] = (unsigned char)((y * k + 127) / 255);
        rgba[4 * x + 3] = 255;
    }
}

int ocm_jpeg_decode(const unsigned char *data, size_t size, ocm_decoded_image *image) {
    struct jpeg_decompress_struct info;
    ocm_error_manager manager;
    /* Volatile: they change between setjmp and a possible longjmp. */
    unsigned char *volatile pixels = NULL;
    unsigned char *volatile row = NULL;

    image->pixels = NULL;
    image->width = 0;
    image->height = 0;
    image->message[0] = 0;
    if (data == NULL || size == 0) {
        snprintf(image->message, sizeof(image->message), "the file is empty");
        return -1;
    }
    info.err = jpeg_std_error(&manager.base);
    manager.base.error_exit = ocm_fail;
    manager.base.emit_message = ocm_emit_message;
    manager.message = image->message;
    if (setjmp(manager.jump)) {
        jpeg_destroy_decompress(&info);
        free(pixels);
        free(row);
        return -1;
    }
    jpeg_create_decompress(&info);
    jpeg_mem_src(&info, data, (unsigned long)size);
    jpeg_read_header(&info, TRUE);
    int cmyk = info.jpeg_color_space == JCS_CMYK || info.jpeg_color_space == JCS_YCCK;
    info.out_color_space = cmyk ? JCS_CMYK : JCS_EXT_RGBA;
    /* The size is checked from the header, before jpeg_start_decompress: for a progressive or
       multi-scan picture that call allocates (and zeroes) a buffer for every coefficient. */
    size_t width = info.image_width, height = info.image_height;
    if (width == 0 || height == 0 || width * height > (size_t)OCM_IMAGE_MAX_PIXELS) {
        snprintf(image->message, sizeof(image->message), "image size %zux%zu is not supported", width, height);
        longjmp(manager.jump, 1);
    }
    size_t needed = width * height * 4;
    if (jpeg_has_multiple_scans(&info)) {
        for (int c = 0; c < info.num_components; c++) {
            const jpeg_component_info *component = &info.comp_info[c];
            size_t h = (size_t)component->h_samp_factor, v = (size_t)component->v_samp_factor;
            size_t columns = ((size_t)component->width_in_blocks + h - 1) / h * h;
            size_t rows = ((size_t)component->height_in_blocks + v - 1) / v * v;
            needed += columns * rows * DCTSIZE2 * sizeof(JCOEF);
        }
    }
    if (needed > (size_t)OCM_DECODE_MAX_BYTES) {
        snprintf(image->message, sizeof(image->message),
                 "a %zux%zu progressive JPEG needs %zu MB to decode, more than the %d MB a picture may take", width,
                 height, needed >> 20, OCM_DECODE_MAX_BYTES >> 20);
        longjmp(manager.jump, 1);
    }
    jpeg_start_decompress(&info);
    width = info.output_width;
    height = info.output_height;
    pixels = malloc(width * height * 4);
    if (cmyk) row = malloc(width * 4);
    if (pixels == NULL || (cmyk && row == NULL)) {
        snprintf(image->message, sizeof(image->message), "out of memory for a %zux%zu image", width, height);
        longjmp(manager.jump, 1);
    }
    while (info.output_scanline < info.output_height) {
        size_t y = info.output_scanline;
        JSAMPROW target = cmyk ? row : pixels + y * width * 4;
        if (jpeg_read_scanlines(&info, &target, 1) != 1) {
            snprintf(image->message, sizeof(image->message), "the data ends at row %zu of %zu", y, height);
            longjmp(manager.jump, 1);
        }
        if (cmyk) ocm_cmyk_row_to_rgba(row, pixels + y * width * 4, (int)width, info.saw_Adobe_marker);
    }
    jpeg_finish_decompress(&info);
    jpeg_destroy_decompress(&info);
    free(row);
    image->pixels = pixels;
    image->width = (int)width;
    image->height = (int)height;
    return 0;
}

#else

int ocm_jpeg_decode(const unsigned char *data, size_t size, ocm_decoded_image *image) {
    (void)data;
    (void)size;
    image->pixels = NULL;
    image->width = 0;
    image->height = 0;
    strcpy(image->message, "decoding through libjpeg is only built on Linux");
    return -1;
}

#endif
