// The C interface's declarations (include/opencoreml.h); their definitions are the `@_cdecl`
// functions of the OpenCoreMLC Swift module. This file exists because a C target needs a source.
#include "opencoreml.h"
