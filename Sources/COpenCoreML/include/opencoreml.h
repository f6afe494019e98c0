/*
 * opencoreml.h — the C interface of OpenCoreML: load a Core ML model, describe it, predict.
 *
 * Link with libOpenCoreMLC.so (the `OpenCoreMLC` product of the Swift package; built with
 * `swift build -c release --product OpenCoreMLC -Xswiftc -static-stdlib` it needs no Swift
 * toolchain at run time). No Swift type crosses this boundary: handles are opaque pointers,
 * strings are NUL-terminated UTF-8, arrays are raw pointers with shapes and strides in elements.
 *
 * Errors. Every call that can fail takes `ocm_error **error` last. On failure it returns
 * NULL (for handles) or a non-zero `ocm_status`, and, when `error` is not NULL, stores a new
 * error there; read it with ocm_error_code / ocm_error_message and free it with ocm_error_free.
 * On success `*error` is left untouched.
 *
 * Strings (names, values, dictionary keys, paths) must be UTF-8: other bytes are OCM_ERROR_ARGUMENT,
 * not repaired into different text.
 *
 * Threads. Models may be used from any number of threads at once (load, describe, predict,
 * batch predict). A features or state object belongs to one thread at a time; a features object
 * given as input may be read by several predictions at once if no thread changes it meanwhile.
 *
 * Ownership. Handles returned by *_load / *_create / *_predict / *_make_state are owned by the
 * caller and freed with the matching *_free (NULL is accepted and ignored). Strings returned as
 * `char *` are freed with ocm_string_free. Pointers returned through `const ... **` out
 * parameters point into the object they were read from and stay valid until it is freed.
 */
#ifndef OPENCOREML_H
#define OPENCOREML_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** The version of this interface; bumped when a declaration below changes. */
#define OCM_API_VERSION 2

typedef struct ocm_model ocm_model;       /* a loaded, compiled model */
typedef struct ocm_features ocm_features; /* named feature values: a prediction's inputs or outputs */
typedef struct ocm_state ocm_state;       /* the state buffers of a stateful model */
typedef struct ocm_error ocm_error;       /* a failure: a status and one line of message */
typedef struct ocm_table ocm_table;       /* named columns of one length: a trainer's data */

/** What went wrong. */
typedef enum ocm_status {
    OCM_OK = 0,
    OCM_ERROR_GENERIC = 1,      /* a model that breaks one of Core ML's rules; a failed prediction */
    OCM_ERROR_FEATURE_TYPE = 2, /* an input missing, or of the wrong type or shape (NaN and infinities are values) */
    OCM_ERROR_IO = 3,           /* a file missing, unreadable, truncated, or not a model */
    OCM_ERROR_PARAMETERS = 4,   /* a parameter the model does not have or a value it does not allow */
    OCM_ERROR_UNSUPPORTED = 5,  /* a valid model or value that OpenCoreML does not run (yet) */
    OCM_ERROR_ARGUMENT = 6,     /* a NULL pointer, unknown code or impossible shape given to this interface */
    OCM_ERROR_NOT_FOUND = 7,    /* no feature or state of that name */
    OCM_ERROR_CANCELLED = 8     /* the progress callback asked to stop work that keeps nothing */
} ocm_status;

/** Feature types: the values of Core ML's MLFeatureType. */
typedef enum ocm_feature_type {
    OCM_FEATURE_INVALID = 0,
    OCM_FEATURE_INT64 = 1,
    OCM_FEATURE_DOUBLE = 2,
    OCM_FEATURE_STRING = 3,
    OCM_FEATURE_IMAGE = 4,
    OCM_FEATURE_MULTIARRAY = 5,
    OCM_FEATURE_DICTIONARY = 6,
    OCM_FEATURE_SEQUENCE = 7,
    OCM_FEATURE_STATE = 8
} ocm_feature_type;

/** Element types of multi-arrays: the values of Core ML's MLMultiArrayDataType. */
typedef enum ocm_dtype {
    OCM_DTYPE_FLOAT64 = 65600,
    OCM_DTYPE_FLOAT32 = 65568,
    OCM_DTYPE_FLOAT16 = 65552, /* IEEE 754 half precision, as its 16-bit pattern */
    OCM_DTYPE_INT32 = 131104,
    OCM_DTYPE_INT8 = 131080
} ocm_dtype;

/** Pixel formats of images: Core Video's codes. Rows are top first, `bytes_per_row` apart. */
#define OCM_PIXEL_BGRA8 0x42475241u     /* 'BGRA': blue, green, red, alpha (alpha ignored) */
#define OCM_PIXEL_RGBA8 0x52474241u     /* 'RGBA' */
#define OCM_PIXEL_GRAY8 0x4C303038u     /* 'L008': one byte per pixel */
#define OCM_PIXEL_GRAY_HALF 0x4C303068u /* 'L00h': one IEEE half float per pixel */

/* ---------------------------------------------------------------------------------------------
 * Errors and strings
 */

/** The status of a failure. */
ocm_status ocm_error_code(const ocm_error *error);
/** One line naming what went wrong and where (the file, feature, layer or operation). */
const char *ocm_error_message(const ocm_error *error);
void ocm_error_free(ocm_error *error);
/** Frees a string this interface returned as `char *`. */
void ocm_string_free(char *string);

/** OpenCoreML's version, such as "0.9.0". */
const char *ocm_version(void);
/** The newest Core ML specification version this library reads. */
int32_t ocm_max_specification_version(void);

/* ---------------------------------------------------------------------------------------------
 * Pictures
 */

/**
 * Decodes the JPEG or PNG file held in `bytes` (`count` of them) to `*width` × `*height` pixels of
 * RGBA, 4 bytes each, row by row, with its EXIF orientation applied. `*pixels` is the caller's,
 * freed with ocm_bytes_free. OCM_ERROR_IO for bytes that are not a picture OpenCoreML decodes.
 */
ocm_status ocm_image_decode(const uint8_t *bytes, size_t count, size_t *width, size_t *height, uint8_t **pixels,
                            ocm_error **error);
/** Frees bytes this interface returned as `uint8_t *`. */
void ocm_bytes_free(uint8_t *bytes);

/* ---------------------------------------------------------------------------------------------
 * Models
 */

/**
 * Loads, validates and compiles the model at `path`: an `.mlmodel` file, an `.mlpackage` or a
 * compiled `.mlmodelc` folder. `function_name` selects a function of a multifunction package
 * (NULL or "" for the default). `memory_limit` caps the bytes the model's buffers may take
 * (0 for the library's default, half the physical memory). An operation or layer OpenCoreML
 * does not run is reported here, as Core ML does, not at the first prediction.
 */
ocm_model *ocm_model_load(const char *path, const char *function_name, int64_t memory_limit, ocm_error **error);
void ocm_model_free(ocm_model *model);

/**
 * The model's description as a JSON object (free with ocm_string_free):
 *   {"specificationVersion": 9, "modelType": "mlProgram", "isUpdatable": false,
 *    "inputs": [FEATURE...], "outputs": [FEATURE...], "states": [FEATURE...],
 *    "predictedFeatureName": "label", "predictedProbabilitiesName": "probs",
 *    "classLabels": ["a", "b"] or [0, 1],
 *    "metadata": {"author": "", "license": "", "shortDescription": "", "version": "",
 *                 "userDefined": {"key": "value"}}}
 * where FEATURE is
 *   {"name": "x", "type": "multiArray" | "image" | "int64" | "double" | "string" | "dictionary"
 *            | "sequence" | "state", "optional": false, "shortDescription": "",
 *    multi-arrays and states: "dataType": "float32" | "float64" | "float16" | "int32" | "int8",
 *        "shape": [1, 3], "shapeFlexibility": null
 *            | {"kind": "range", "ranges": [[1, 1], [1, -1]]}      (-1: no upper bound)
 *            | {"kind": "enumerated", "shapes": [[1, 3], [2, 3]]},
 *    images: "width": 224, "height": 224, "colorSpace": "RGB" | "BGR" | "GRAYSCALE"
 *        | "GRAYSCALE_FLOAT16", "sizeFlexibility": null
 *            | {"kind": "range", "width": [lo, hi], "height": [lo, hi]}
 *            | {"kind": "enumerated", "sizes": [[width, height]...]},
 *    dictionaries: "keyType": "string" | "int64",
 *    sequences: "elementType": "string" | "int64", "countRange": [lo, hi]}
 * Every string from the model is JSON-escaped; keys absent from a model are null or empty.
 */
char *ocm_model_description_json(const ocm_model *model, ocm_error **error);

/**
 * Predicts the outputs for one example. `state` is NULL, or a state made by
 * ocm_model_make_state for a stateful model. Returns a new features object holding every output.
 */
ocm_features *ocm_model_predict(ocm_model *model, const ocm_features *inputs, ocm_state *state, ocm_error **error);

/**
 * Predicts `count` examples together (faster than one at a time). On success `outputs[i]` holds a
 * new features object per example; on failure none is stored and the error names the example.
 */
ocm_status ocm_model_predict_batch(ocm_model *model, const ocm_features *const *inputs, size_t count,
                                   ocm_features **outputs, ocm_error **error);

/* ---------------------------------------------------------------------------------------------
 * Features: named values, built as inputs or read as outputs
 */

ocm_features *ocm_features_create(void);
void ocm_features_free(ocm_features *features);

/**
 * Sets `name` to a multi-array over the caller's memory, without copying: `data` must stay valid
 * and unchanged until the features object is freed. `strides` are in elements (NULL: contiguous,
 * row-major). Every size must be at least 1; a scalar is rank 1, shape {1}.
 *
 * The memory is taken on trust, but what the arguments say about it is checked, each failure an
 * OCM_ERROR_ARGUMENT naming the feature: a rank from 1 to 64, a known `dtype`, `shape` and `data`
 * not NULL, `data` aligned to its element size, sizes whose product (in bytes) fits in memory,
 * strides not negative (0 repeats an element), and the last element reached (the sum of
 * (size - 1) × stride) inside the address space. NaN and infinities are values like any other:
 * models get them as they are (an imputer imputes them, a tree takes its missing-value branch).
 */
ocm_status ocm_features_set_array(ocm_features *features, const char *name, ocm_dtype dtype, size_t rank,
                                  const int64_t *shape, const int64_t *strides, void *data, ocm_error **error);
ocm_status ocm_features_set_int64(ocm_features *features, const char *name, int64_t value, ocm_error **error);
ocm_status ocm_features_set_double(ocm_features *features, const char *name, double value, ocm_error **error);
ocm_status ocm_features_set_string(ocm_features *features, const char *name, const char *value, ocm_error **error);
/**
 * Sets `name` to a dictionary of `count` scores, keyed by `string_keys` (UTF-8) or by `int_keys`:
 * exactly one of the two is non-NULL (either may be NULL when `count` is 0).
 */
ocm_status ocm_features_set_dictionary(ocm_features *features, const char *name, size_t count,
                                       const char *const *string_keys, const int64_t *int_keys,
                                       const double *values, ocm_error **error);
/**
 * Sets `name` to an image, copying its pixels (one of the OCM_PIXEL_ formats): `height` rows
 * `bytes_per_row` apart, each at least `width` pixels long. OCM_ERROR_ARGUMENT for another format,
 * a zero size, a row stride shorter than a row, or rows that would reach past the end of memory.
 */
ocm_status ocm_features_set_image(ocm_features *features, const char *name, uint32_t pixel_format, size_t width,
                                  size_t height, size_t bytes_per_row, const void *pixels, ocm_error **error);

/** The number of features, and the name of the one at `index` (in byte order of the names). */
size_t ocm_features_count(const ocm_features *features);
const char *ocm_features_name(const ocm_features *features, size_t index);
/** The type of the feature `name`, or OCM_FEATURE_INVALID when there is none. */
ocm_feature_type ocm_features_type(const ocm_features *features, const char *name);

/** Reads a multi-array: its element type, rank, shape, strides (elements) and first element. */
ocm_status ocm_features_get_array(const ocm_features *features, const char *name, ocm_dtype *dtype, size_t *rank,
                                  const int64_t **shape, const int64_t **strides, const void **data, ocm_error **error);
ocm_status ocm_features_get_int64(const ocm_features *features, const char *name, int64_t *value, ocm_error **error);
ocm_status ocm_features_get_double(const ocm_features *features, const char *name, double *value, ocm_error **error);
ocm_status ocm_features_get_string(const ocm_features *features, const char *name, const char **value, ocm_error **error);
/**
 * Reads a dictionary: `count` entries whose keys are strings (`*key_type` OCM_FEATURE_STRING,
 * `*string_keys` set) or integers (OCM_FEATURE_INT64, `*int_keys` set), with `*values` in the same
 * order (keys sorted).
 */
ocm_status ocm_features_get_dictionary(const ocm_features *features, const char *name, size_t *count,
                                       ocm_feature_type *key_type, const char *const **string_keys,
                                       const int64_t **int_keys, const double **values, ocm_error **error);
/** Reads an image: its pixel format (OCM_PIXEL_), size, row stride and pixels. */
ocm_status ocm_features_get_image(const ocm_features *features, const char *name, uint32_t *pixel_format, size_t *width,
                                  size_t *height, size_t *bytes_per_row, const void **pixels, ocm_error **error);

/* ---------------------------------------------------------------------------------------------
 * States (Core ML's MLState): the buffers a stateful model reads and updates across predictions
 */

/** A new state for `model`, every buffer zero; a model without states gets an empty state. */
ocm_state *ocm_model_make_state(ocm_model *model, ocm_error **error);
void ocm_state_free(ocm_state *state);
/** The number of state buffers and the name of the one at `index`. */
size_t ocm_state_count(const ocm_state *state);
const char *ocm_state_name(const ocm_state *state, size_t index);
/** Reads a state buffer (pointers valid until the state is freed or next used by a prediction). */
ocm_status ocm_state_read(const ocm_state *state, const char *name, ocm_dtype *dtype, size_t *rank,
                          const int64_t **shape, const void **data, ocm_error **error);
/** Overwrites a state buffer with `data` (copied), which must have the buffer's shape; converted to its type. */
ocm_status ocm_state_write(ocm_state *state, const char *name, ocm_dtype dtype, size_t rank, const int64_t *shape,
                           const int64_t *strides, const void *data, ocm_error **error);


/* ---------------------------------------------------------------------------------------------
 * Tables and training (OpenCreateML's trainers; Turi Create's toolkits in Python run on these)
 */

/**
 * Progress of long work, as one JSON object per event (valid during the call only):
 *   {"kind": "iteration", "iteration": 3, "training_loss": 0.4, "validation_loss": null,
 *    "training_metric": 0.9, "validation_metric": null, "metric": "accuracy" | "rmse", "seconds": 0.2}
 *   {"kind": "step", "iteration": 1, "step": 5, "of": 20, "loss": 1.2}          (activity classifier)
 *   {"kind": "features", "completed": 10, "total": 30, "cached": 4}             (feature extraction)
 * Called on the thread that made the call. Returning non-zero asks to stop: a trainer stops after
 * the current iteration and keeps what it has trained; feature extraction fails with
 * OCM_ERROR_CANCELLED.
 */
typedef int (*ocm_progress_fn)(void *context, const char *event_json);

/** A new, empty table (free with ocm_table_free). Columns are copied in; the order they are added is kept. */
ocm_table *ocm_table_create(void);
void ocm_table_free(ocm_table *table);
size_t ocm_table_row_count(const ocm_table *table);
/**
 * Adds a column of `count` values. `missing` is NULL or `count` flags (non-zero: the row has no
 * value); a NaN double is missing too. Strings are `count` + 1 byte offsets into `bytes` (UTF-8,
 * row i is bytes[offsets[i] ..< offsets[i + 1]], as an Arrow string column). Vectors are `count`
 * rows of `width` doubles, row-major. Every column of a table has the same count.
 */
ocm_status ocm_table_add_doubles(ocm_table *table, const char *name, const double *values, const uint8_t *missing,
                                 size_t count, ocm_error **error);
ocm_status ocm_table_add_int64s(ocm_table *table, const char *name, const int64_t *values, const uint8_t *missing,
                                size_t count, ocm_error **error);
ocm_status ocm_table_add_strings(ocm_table *table, const char *name, const int64_t *offsets, const uint8_t *bytes,
                                 const uint8_t *missing, size_t count, ocm_error **error);
ocm_status ocm_table_add_vectors(ocm_table *table, const char *name, const double *values, size_t width,
                                 const uint8_t *missing, size_t count, ocm_error **error);

/**
 * Trains `toolkit` on `training` and writes its Core ML model to `model_path` (atomically).
 * toolkit: "logistic_classifier", "linear_regression", "boosted_trees_classifier",
 * "boosted_trees_regression", "random_forest_classifier", "random_forest_regression",
 * "decision_tree_classifier", "decision_tree_regression", "classifier", "regression" (the best
 * of the candidates, as Create ML's MLClassifier / MLRegressor), "activity_classifier".
 * options_json: {"target": "label", "features": ["a", "b"] or null, "session_id": null,
 *   "validation": "auto" | "none" | "table" (the `validation` table, else NULL),
 *   "max_iterations", "l1_penalty", "l2_penalty", "convergence_threshold", "step_size",
 *   "feature_rescaling", "max_depth", "min_loss_reduction", "min_child_weight", "row_subsample",
 *   "column_subsample", "early_stopping_rounds", "random_seed", "prediction_window", "batch_size",
 *   "batchnorm_statistics": "recomputed" | "bias-corrected" | "moving-average"}
 * (absent: the trainer's default; an unknown key is OCM_ERROR_PARAMETERS).
 * Returns a JSON report (free with ocm_string_free): {"model": "BoostedTreesClassifier",
 *   "classes": [...] or null, "features": [...], "training_time": s, "stopped": false,
 *   "training_accuracy", "validation_accuracy", "training_rmse", "validation_rmse",
 *   "training_max_error", "validation_max_error" (null where they do not apply),
 *   "iterations": [ITERATION...]} with ITERATION as the progress event above; linear models also
 *   "coefficients": [{"name", "index" (null, a category or an element), "class" (null for a
 *   regressor), "value"}...], the intercept first as "(intercept)".
 * A bad parameter or data set is OCM_ERROR_PARAMETERS, its message naming the column, row or parameter.
 */
char *ocm_train(const char *toolkit, const ocm_table *training, const ocm_table *validation, const char *options_json,
                ocm_progress_fn progress, void *context, const char *model_path, ocm_error **error);

/** The number of features the extractor gives per picture (extractor: NULL or "" for the built-in one). */
ocm_status ocm_image_feature_count(const char *extractor_path, const char *output_name, size_t *count, ocm_error **error);
/**
 * The features of `count` pictures, each the bytes of a JPEG or PNG file (`pictures[i]`,
 * `sizes[i]` bytes), by the extractor at `extractor_path` (an .mlmodel, cut at `output_name`
 * when given; NULL or "" for the built-in one). `*features` (free with ocm_bytes_free) holds
 * `count` × `*width` floats, row-major. Features are cached under `cache_directory` (NULL or "":
 * no cache) by the extractor's and the picture's content, so a picture is extracted once per
 * extractor. A picture that cannot be decoded is OCM_ERROR_IO naming its index.
 */
ocm_status ocm_image_features(const char *extractor_path, const char *output_name, const uint8_t *const *pictures,
                              const size_t *sizes, size_t count, const char *cache_directory, ocm_progress_fn progress,
                              void *context, float **features, size_t *width, ocm_error **error);
/**
 * Writes the image classifier made of the extractor (as in ocm_image_features) and the classifier
 * model at `classifier_path`, whose one input, `feature_input`, is a vector of the extractor's
 * features: a pipeline whose input is the extractor's image. `metadata_json` is NULL or
 * {"shortDescription", "author", "license", "version", "userDefined": {...}}.
 */
ocm_status ocm_image_classifier_export(const char *extractor_path, const char *output_name, const char *classifier_path,
                                       const char *feature_input, const char *metadata_json, const char *path,
                                       ocm_error **error);

/**
 * What an activity classifier (written by ocm_train or Turi Create) predicts for every
 * prediction window of every session of `table` (`session_column` NULL: one session): a JSON
 * array (free with ocm_string_free) of {"session", "window", "first_row", "row_count", "label",
 * "probabilities": {label: p}}.
 */
char *ocm_activity_predict(ocm_model *model, const ocm_table *table, const char *session_column, ocm_error **error);

#ifdef __cplusplus
}
#endif

#endif /* OPENCOREML_H */
