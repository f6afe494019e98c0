import _OpenCoreMLTestSupport
import Testing
import _OpenCoreMLKernels

/// Context of `countVisits`: one counter per index.
private struct Visits {
    var counts: UnsafeMutablePointer<Int32>
}

/// Adds 1 to the counter of every index in [begin, end).
private let countVisits: ocm_range_fn = { ctx, begin, end in
    let visits = ctx!.assumingMemoryBound(to: Visits.self).pointee
    for i in begin..<end { visits.counts[i] += 1 }
}

/// Runs ocm_parallel_for over `count` indices and returns how often each was visited.
private func visitCounts(_ count: Int) -> [Int32] {
    let counts = UnsafeMutablePointer<Int32>.allocate(capacity: max(count, 1))
    counts.initialize(repeating: 0, count: max(count, 1))
    defer { counts.deallocate() }
    var visits = Visits(counts: counts)
    withUnsafeMutablePointer(to: &visits) { ocm_parallel_for(count, countVisits, $0) }
    return Array(UnsafeBufferPointer(start: counts, count: count))
}

/// A body that itself calls ocm_parallel_for (which must then run serially, not deadlock).
private let nestedBody: ocm_range_fn = { ctx, begin, end in
    let visits = ctx!.assumingMemoryBound(to: Visits.self).pointee
    for i in begin..<end {
        var inner = Visits(counts: visits.counts + i * 10)
        withUnsafeMutablePointer(to: &inner) { ocm_parallel_for(10, countVisits, $0) }
    }
}

/// Context of `countDynamicVisits`: one counter per index, and the largest thread number seen.
private struct DynamicVisits {
    var counts: UnsafeMutablePointer<Int32>
    var threads: UnsafeMutablePointer<Int32>
}

private let countDynamicVisits: ocm_index_fn = { ctx, thread, index in
    let visits = ctx!.assumingMemoryBound(to: DynamicVisits.self).pointee
    // Each index is handed out once, so its counter and the thread's slot are written by one
    // thread at a time.
    visits.counts[index] += 1
    visits.threads[Int(thread)] = 1
}

extension KernelTests {
    @Suite("Dispatch and threads")
    struct DispatchAndThreads {
        @Test func isaNamesAndSwitching() {
            #expect(ocm_isa_supported(OCM_ISA_SCALAR))
            #expect(!ocm_isa_supported(42))
            let saved = ocm_isa()
            #expect(ocm_isa_supported(saved))
            forEachISA { name in
                let expected = ["scalar", "avx2", "avx512", "neon"][Int(ocm_isa())]
                #expect(name == expected)
            }
            #expect(ocm_isa() == saved, "forEachISA restores the level")
            #expect(!ocm_set_isa(42))
            #expect(ocm_isa() == saved, "an unsupported level changes nothing")
            #if arch(x86_64)
            #expect(!ocm_isa_supported(OCM_ISA_NEON))
            #elseif arch(arm64)
            #expect(ocm_isa_supported(OCM_ISA_NEON))
            #expect(!ocm_isa_supported(OCM_ISA_AVX2))
            #endif
        }

        @Test func parallelForVisitsEveryIndexOnce() {
            withKernelSettingsHeld {
                defer { ocm_set_num_threads(0) }
                for threads in [1, 2, 3, 5] {
                    ocm_set_num_threads(Int32(threads))
                    #expect(ocm_num_threads() == Int32(threads))
                    for count in [0, 1, 2, 3, 7, 1000] {
                        #expect(visitCounts(count).allSatisfy { $0 == 1 }, "\(count) indices, \(threads) threads")
                    }
                }
            }
        }

        @Test func parallelDynamicVisitsEveryIndexOnceOnTheThreadsInUse() {
            withKernelSettingsHeld {
                defer { ocm_set_num_threads(0) }
                for threads in [1, 2, 3] {
                    ocm_set_num_threads(Int32(threads))
                    for count in [0, 1, 2, 5, 1000] {
                        let counts = UnsafeMutablePointer<Int32>.allocate(capacity: max(count, 1))
                        counts.initialize(repeating: 0, count: max(count, 1))
                        let used = UnsafeMutablePointer<Int32>.allocate(capacity: 64)
                        used.initialize(repeating: 0, count: 64)
                        defer { counts.deallocate(); used.deallocate() }
                        var visits = DynamicVisits(counts: counts, threads: used)
                        withUnsafeMutablePointer(to: &visits) { ocm_parallel_dynamic(count, countDynamicVisits, $0) }
                        #expect(UnsafeBufferPointer(start: counts, count: count).allSatisfy { $0 == 1 }, "\(count) indices, \(threads) threads")
                        let highest = (0..<64).last { used[$0] != 0 } ?? -1
                        #expect(highest < min(threads, max(count, 1)), "thread numbers stay below \(threads) for \(count) indices")
                    }
                }
            }
        }

        @Test func nestedParallelForRunsSerially() {
            withKernelSettingsHeld {
                defer { ocm_set_num_threads(0) }
                ocm_set_num_threads(2)
                let counts = UnsafeMutablePointer<Int32>.allocate(capacity: 40)
                counts.initialize(repeating: 0, count: 40)
                defer { counts.deallocate() }
                var visits = Visits(counts: counts)
                withUnsafeMutablePointer(to: &visits) { ocm_parallel_for(4, nestedBody, $0) }
                #expect(UnsafeBufferPointer(start: counts, count: 40).allSatisfy { $0 == 1 })
            }
        }

        @Test func defaultThreadCountIsPositive() {
            ocm_set_num_threads(0)
            #expect(ocm_num_threads() >= 1)
        }
    }
}
