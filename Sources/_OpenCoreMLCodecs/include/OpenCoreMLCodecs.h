#ifndef OPENCOREML_CODECS_H
#define OPENCOREML_CODECS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// A decoded picture: `width * height` RGBA pixels (straight alpha), rows top to bottom, no
/// padding. `pixels` is allocated by a decoder and released by `ocm_image_free`.
typedef struct {
    unsigned char *pixels;
    int width;
    int height;
    /// Why decoding failed (the library's message), empty on success.
    char message[200];
} ocm_decoded_image;

/// Decodes a baseline or progressive JPEG (grayscale, YCbCr, RGB, CMYK or YCCK) held in memory
/// with libjpeg(-turbo). Returns 0 on success, -1 on failure with `image->message` set and
/// nothing allocated. Data that ends early is an error (libjpeg itself only warns and pads the
/// picture with gray).
int ocm_jpeg_decode(const unsigned char *data, size_t size, ocm_decoded_image *image);

/// Decodes a PNG held in memory with libpng: every colour type and bit depth becomes 8-bit RGBA
/// (16-bit samples scaled by 255/65535 and rounded, palettes and tRNS expanded); sample values
/// are kept as stored, without gamma or colour-profile conversion (as Pillow reads them).
/// Returns 0 on success, -1 on failure with `image->message` set and nothing allocated.
int ocm_png_decode(const unsigned char *data, size_t size, ocm_decoded_image *image);

/// Releases the pixels of a decoded image (safe on a failed or already released one).
void ocm_image_free(ocm_decoded_image *image);

// Both libraries report fatal errors by longjmp; each decoder calls setjmp itself, so the jump
// lands inside the same C function and never crosses a Swift frame. Pictures over 2^28 pixels
// are refused before any allocation. On platforms other than Linux the decoders always fail.

#ifdef __cplusplus
}
#endif

#endif
