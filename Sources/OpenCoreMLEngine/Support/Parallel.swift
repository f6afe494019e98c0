import _OpenCoreMLKernels

/// Splits `0..<count` into one contiguous chunk per kernel thread and runs `body(chunk, range)`
/// on the thread pool; `chunk` numbers the chunks from 0 so bodies can use per-chunk scratch.
/// Runs on the calling thread when there is one chunk.
func parallelChunks(_ count: Int, _ body: (_ chunk: Int, _ range: Range<Int>) -> Void) {
    let chunks = min(Int(ocm_num_threads()), count)
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

/// The number of threads the kernels use (the caller included).
var kernelThreadCount: Int { Int(ocm_num_threads()) }

/// The number of chunks `parallelChunks` uses for `count` items.
func chunkCount(_ count: Int) -> Int { max(1, min(Int(ocm_num_threads()), count)) }

private struct ChunkJob {
    let count: Int
    let chunks: Int
    let body: (Int, Range<Int>) -> Void

    func range(of chunk: Int) -> Range<Int> {
        (count * chunk / chunks)..<(count * (chunk + 1) / chunks)
    }
}
