import _OpenCoreMLKernels

/// Runs `body(thread, index)` for every index in `0..<count` on the thread pool, handing the next
/// index to whichever thread is free (so a thread the OS delays holds up no one); `thread` is in
/// `0..<chunkCount(count)`, for per-thread scratch. Runs on the calling thread when there is one.
/// `slots` caps the threads (and so `thread`) at the number of scratch slots the caller sized.
package func parallelForEach(_ count: Int, slots: Int = Int(Int32.max), _ body: (_ thread: Int, _ index: Int) -> Void) {
    withoutActuallyEscaping(body) { body in
        var job = IndexJob(body: body)
        withUnsafeMutablePointer(to: &job) { pointer in
            ocm_parallel_dynamic_slots(count, Int32(clamping: max(1, slots)), { context, thread, index in
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

/// The number of threads `parallelForEach` and `parallelChunks` use for `count` items: per-thread scratch slots.
package func chunkCount(_ count: Int) -> Int { max(1, min(Int(ocm_num_threads()), count)) }

/// Splits `0..<count` into one contiguous chunk per kernel thread (`chunkCount(count)` of them) and
/// runs `body(chunk, range)` on the thread pool, for sums that need a fixed order per chunk.
/// Runs on the calling thread when there is one chunk.
/// `chunks` (default `chunkCount(count)`) fixes the number of chunks, and so of scratch slots.
package func parallelChunks(_ count: Int, chunks: Int? = nil, _ body: (_ chunk: Int, _ range: Range<Int>) -> Void) {
    let chunks = min(max(1, chunks ?? chunkCount(count)), max(count, 1))
    guard chunks > 1 else {
        if count > 0 { body(0, 0..<count) }
        return
    }
    withoutActuallyEscaping(body) { body in
        var job = ChunkJob(count: count, chunks: chunks, body: body)
        withUnsafeMutablePointer(to: &job) { pointer in
            ocm_parallel_for(chunks, { context, begin, end in
                let job = context!.assumingMemoryBound(to: ChunkJob.self)
                for chunk in begin..<end {
                    job.pointee.body(chunk, job.pointee.range(of: chunk))
                }
            }, pointer)
        }
    }
}

private struct ChunkJob {
    let count: Int
    let chunks: Int
    let body: (Int, Range<Int>) -> Void

    func range(of chunk: Int) -> Range<Int> {
        (count * chunk / chunks)..<(count * (chunk + 1) / chunks)
    }
}
