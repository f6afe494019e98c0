#ifndef OPENCOREML_CODECS_H
#define OPENCOREML_CODECS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/// The most pixels a picture may have, decoded or encoded: 2^28 (268 megapixels, 1 GiB of RGBA).
#define OCM_IMAGE_MAX_PIXELS 268435456

/// The most memory one decoding may take for the picture: its RGBA pixels plus, for a progressive
/// or multi-scan JPEG, libjpeg's buffer of every coefficient (128 bytes per 8×8 block and
/// component), which it fills before the first row comes out. 1 GiB: a tiny file that claims a
/// huge progressive picture is refused before libjpeg allocates anything.
#define OCM_DECODE_MAX_BYTES 1073741824

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
/// nothing allocated. Data that ends early (the file, or a scan's data before a marker) is an error
/// (libjpeg itself only warns and pads the picture with gray).
int ocm_jpeg_decode(const unsigned char *data, size_t size, ocm_decoded_image *image);

/// Decodes a PNG held in memory with libpng: every colour type and bit depth becomes 8-bit RGBA
/// (16-bit samples scaled by 255/65535 and rounded, palettes and tRNS expanded); sample values
/// are kept as stored, without gamma or colour-profile conversion (as Pillow reads them).
/// Returns 0 on success, -1 on failure with `image->message` set and nothing allocated.
int ocm_png_decode(const unsigned char *data, size_t size, ocm_decoded_image *image);

/// Releases the pixels of a decoded image (safe on a failed or already released one).
void ocm_image_free(ocm_decoded_image *image);

/// An encoded PNG file: `size` bytes at `data`, allocated by the encoder and released by
/// `ocm_encoded_png_free`.
typedef struct {
    unsigned char *data;
    size_t size;
    /// Why encoding failed (the library's message), empty on success.
    char message[200];
} ocm_encoded_png;

/// Encodes `width * height` RGBA pixels (straight alpha, rows top to bottom, no padding) as an
/// 8-bit PNG in memory with libpng, tagged sRGB: RGB when every pixel is opaque, else RGBA.
/// Returns 0 on success, -1 on failure with `output->message` set and nothing allocated.
int ocm_png_encode_rgba(const unsigned char *pixels, int width, int height, ocm_encoded_png *output);

/// Releases an encoded PNG's bytes (safe on a failed or already released one).
void ocm_encoded_png_free(ocm_encoded_png *output);

// Both libraries report fatal errors by longjmp; each decoder and the encoder call setjmp
// themselves, so the jump lands inside the same C function and never crosses a Swift frame.
// Pictures over OCM_IMAGE_MAX_PIXELS, or needing more than OCM_DECODE_MAX_BYTES to decode, are
// refused before any large allocation. On platforms other than Linux the
// decoders and the encoder always fail.

#ifdef __cplusplus
}
#endif

#endif
