import _OpenCoreMLKernels

/// Runs `body(thread, index)` for every index in `0..<count` on the thread pool, handing the next
/// index to whichever thread is free (so a thread the OS delays holds up no one); `thread` is in
/// `0..<chunkCount(count)`, for per-thread scratch. Runs on the calling thread when there is one.
func parallelForEach(_ count: Int, _ body: (_ thread: Int, _ index: Int) -> Void) {
    withoutActuallyEscaping(body) { body in
        var job = IndexJob(body: body)
        withUnsafeMutablePointer(to: &job) { pointer in
            ocm_parallel_dynamic(count, { context, thread, index in
                context!.assumingMemoryBound(to: IndexJob.self).pointee.body(Int(thread), index)
            }, pointer)
        }
    }
}

private struct IndexJob {
    let body: (Int, Int) -> Void
}

/// The number of threads the kernels use (the caller included).
var kernelThreadCount: Int { Int(ocm_num_threads()) }

/// The number of threads `parallelForEach` uses for `count` items: per-thread scratch slots.
func chunkCount(_ count: Int) -> Int { max(1, min(Int(ocm_num_threads()), count)) }
