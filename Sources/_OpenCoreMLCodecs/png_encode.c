#include "OpenCoreMLCodecs.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <png.h>
#include <setjmp.h>
#include <stdio.h>

/// The growing buffer libpng writes into, and where to put the message of a failure.
typedef struct {
    ocm_encoded_png *output;
    size_t capacity;
} ocm_png_sink;

static void ocm_png_encode_fail(png_structp png, png_const_charp text) {
    ocm_png_sink *sink = (ocm_png_sink *)png_get_error_ptr(png);
    snprintf(sink->output->message, sizeof(sink->output->message), "%s", text);
    png_longjmp(png, 1);
}

static void ocm_png_encode_warn(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

static void ocm_png_write(png_structp png, png_bytep bytes, png_size_t count) {
    ocm_png_sink *sink = (ocm_png_sink *)png_get_io_ptr(png);
    ocm_encoded_png *output = sink->output;
    if (count > SIZE_MAX / 2 - output->size) png_error(png, "the PNG is too large");
    if (output->size + count > sink->capacity) {
        size_t capacity = sink->capacity < 65536 ? 65536 : sink->capacity;
        while (capacity < output->size + count) capacity *= 2;
        unsigned char *grown = realloc(output->data, capacity);
        if (grown == NULL) png_error(png, "out of memory");
        output->data = grown;
        sink->capacity = capacity;
    }
    memcpy(output->data + output->size, bytes, count);
    output->size += count;
}

static void ocm_png_flush(png_structp png) { (void)png; }

int ocm_png_encode_rgba(const unsigned char *pixels, int width, int height, ocm_encoded_png *output) {
    png_structp png = NULL;
    png_infop info = NULL;
    ocm_png_sink sink = {output, 0};

    output->data = NULL;
    output->size = 0;
    output->message[0] = 0;
    if (pixels == NULL || width <= 0 || height <= 0 || (size_t)width * (size_t)height > (size_t)OCM_IMAGE_MAX_PIXELS) {
        snprintf(output->message, sizeof(output->message), "the image size %dx%d is not supported", width, height);
        return -1;
    }
    /* Opaque pictures (every chart) are written as RGB: a quarter smaller, and read back the same. */
    int opaque = 1;
    size_t count = (size_t)width * (size_t)height;
    for (size_t i = 0; i < count && opaque; i++) opaque = pixels[4 * i + 3] == 255;

    png = png_create_write_struct(PNG_LIBPNG_VER_STRING, &sink, ocm_png_encode_fail, ocm_png_encode_warn);
    if (png != NULL) info = png_create_info_struct(png);
    if (png == NULL || info == NULL) {
        png_destroy_write_struct(&png, NULL);
        snprintf(output->message, sizeof(output->message), "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_write_struct(&png, &info);
        free(output->data);
        output->data = NULL;
        output->size = 0;
        return -1;
    }
    png_set_write_fn(png, &sink, ocm_png_write, ocm_png_flush);
    png_set_IHDR(png, info, (png_uint_32)width, (png_uint_32)height, 8,
                 opaque ? PNG_COLOR_TYPE_RGB : PNG_COLOR_TYPE_RGB_ALPHA,
                 PNG_INTERLACE_NONE, PNG_COMPRESSION_TYPE_DEFAULT, PNG_FILTER_TYPE_DEFAULT);
    /* The samples are sRGB, as the decoder and every viewer take them. */
    png_set_sRGB(png, info, PNG_sRGB_INTENT_PERCEPTUAL);
    png_write_info(png, info);
    if (opaque) png_set_filler(png, 0, PNG_FILLER_AFTER);  // drop the fourth byte of each pixel
    for (int y = 0; y < height; y++) {
        png_write_row(png, (png_const_bytep)(pixels + (size_t)y * (size_t)width * 4));
    }
    png_write_end(png, NULL);
    png_destroy_write_struct(&png, &info);
    return 0;
}

#else

int ocm_png_encode_rgba(const unsigned char *pixels, int width, int height, ocm_encoded_png *output) {
    (void)pixels;
    (void)width;
    (void)height;
    output->data = NULL;
    output->size = 0;
    strcpy(output->message, "encoding through libpng is only built on Linux");
    return -1;
}

#endif

void ocm_encoded_png_free(ocm_encoded_png *output) {
    free(output->data);
    output->data = NULL;
    output->size = 0;
}
