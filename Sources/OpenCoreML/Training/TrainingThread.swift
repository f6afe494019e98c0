import Foundation

/// Runs `body` on a new thread, where updates train (off the caller's thread, with room for a
/// deep stack).
func startTrainingThread(_ body: @escaping @Sendable () -> Void) {
    let thread = Thread(block: body)
    thread.stackSize = 8 << 20
    thread.name = "OpenCoreML.update"
    thread.start()
}
