// `import CoreML` brings Foundation with it on Apple platforms; `import OpenCoreML` does the same, so
// code that uses `URL`, `Data` or `Bundle` next to Core ML compiles with only its import changed.
@_exported import Foundation
