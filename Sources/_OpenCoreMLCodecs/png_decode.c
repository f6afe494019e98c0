#include "OpenCoreMLCodecs.h"

#include <stdlib.h>
#include <string.h>

#if defined(__linux__)
#include <png.h>
#include <setjmp.h>
#include <stdio.h>

/// The bytes libpng reads from, and where it is.
typedef struct {
    const unsigned char *data;
    size_t size;
    size_t offset;
} ocm_png_source;

static void ocm_png_read(png_structp png, png_bytep target, png_size_t count) {
    ocm_png_source *source = (ocm_png_source *)png_get_io_ptr(png);
    if (count > source->size - source->offset) {
        png_error(png, "the data ends early");
    }
    memcpy(target, source->data + source->offset, count);
    source->offset += count;
}

static void ocm_png_fail(png_structp png, png_const_charp text) {
    ocm_decoded_image *image = (ocm_decoded_image *)png_get_error_ptr(png);
    snprintf(image->message, sizeof(image->message), "%s", text);
    png_longjmp(png, 1);
}

static void ocm_png_warn(png_structp png, png_const_charp text) {
    (void)png;
    (void)text;
}

int ocm_png_decode(const unsigned char *data, size_t size, ocm_decoded_image *image) {
    png_structp png = NULL;
    png_infop info = NULL;
    ocm_png_source source = {data, size, 0};
    /* Volatile: they change between setjmp and a possible longjmp. */
    unsigned char *volatile pixels = NULL;
    png_bytep *volatile rows = NULL;

    image->pixels = NULL;
    image->width = 0;
    image->height = 0;
    image->message[0] = 0;
    png = png_create_read_struct(PNG_LIBPNG_VER_STRING, image, ocm_png_fail, ocm_png_warn);
    if (png != NULL) info = png_create_info_struct(png);
    if (png == NULL || info == NULL) {
        png_destroy_read_struct(&png, NULL, NULL);
        snprintf(image->message, sizeof(image->message), "out of memory");
        return -1;
    }
    if (setjmp(png_jmpbuf(png))) {
        png_destroy_read_struct(&png, &info, NULL);
        free(pixels);
        free(rows);
        return -1;
    }
    png_set_read_fn(png, &source, ocm_png_read);
    /* libpng allocates an ancillary chunk's buffer at the length the chunk declares, before reading
       it (a 300-byte file declaring a 1.6 GB eXIf chunk asked for 1.6 GB), and only warns when the
       length passes its limit. The decoder needs none of those chunks (colour profiles and gamma are
       not applied; EXIF orientation is read by our own reader), so libpng skips them all, without
       allocating: every chunk but IHDR, PLTE, tRNS, IDAT and IEND. The 8 MB cap (libpng's own
       default configuration) stays for whatever libpng still buffers. */
    png_set_keep_unknown_chunks(png, PNG_HANDLE_CHUNK_NEVER, NULL, -1);
    png_set_chunk_malloc_max(png, (png_alloc_size_t)8000000);
    png_read_info(png, info);
    png_uint_32 width = png_get_image_width(png, info), height = png_get_image_height(png, info);
    if (width == 0 || height == 0 || (size_t)width * height > (size_t)OCM_IMAGE_MAX_PIXELS) {
        png_error(png, "the image size is not supported");
    }
    int colour = png_get_color_type(png, info);
    png_set_scale_16(png);
    png_set_packing(png);
    if (colour == PNG_COLOR_TYPE_PALETTE) png_set_palette_to_rgb(png);
    if (colour == PNG_COLOR_TYPE_GRAY && png_get_bit_depth(png, info) < 8) png_set_expand_gray_1_2_4_to_8(png);
    if (png_get_valid(png, info, PNG_INFO_tRNS)) png_set_tRNS_to_alpha(png);
    if (colour == PNG_COLOR_TYPE_GRAY || colour == PNG_COLOR_TYPE_GRAY_ALPHA) png_set_gray_to_rgb(png);
    png_set_filler(png, 0xFF, PNG_FILLER_AFTER);
    png_set_interlace_handling(png);
    png_read_update_info(png, info);
    if (png_get_rowbytes(png, info) != (size_t)width * 4) {
        png_error(png, "unexpected row layout after conversion to RGBA");
    }
    pixels = malloc((size_t)width * height * 4);
    rows = malloc(sizeof(png_bytep) * height);
    if (pixels == NULL || rows == NULL) png_error(png, "out of memory");
    for (png_uint_32 y = 0; y < height; y++) rows[y] = pixels + (size_t)y * width * 4;
    png_read_image(png, rows);
    png_read_end(png, NULL);
    png_destroy_read_struct(&png, &info, NULL);
    free(rows);
    image->pixels = pixels;
    image->width = (int)width;
    image->height = (int)height;
    return 0;
}

#else

int ocm_png_decode(const unsigned char *data, size_t size, ocm_decoded_image *image) {
    (void)data;
    (void)size;
    image->pixels = NULL;
    image->width = 0;
    image->height = 0;
    strcpy(image->message, "decoding through libpng is only built on Linux");
    return -1;
}

#endif

void ocm_image_free(ocm_decoded_image *image) {
    free(image->pixels);
    image->pixels = NULL;
}
