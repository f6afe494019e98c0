// The system cairo, for the command-line tool's charts: PNG through an image surface, PDF through a
// PDF surface, text through its font API (fontconfig and FreeType on Linux).
#include <cairo.h>
#include <cairo-pdf.h>
