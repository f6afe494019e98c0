import _OpenCoreMLKernels

/// Returns the heap memory freed so far to the system (glibc keeps freed blocks in per-thread
/// arenas); call it when a large piece of work, such as a model update, is done.
package func releaseFreedMemory() {
    ocm_trim_heap()
}
