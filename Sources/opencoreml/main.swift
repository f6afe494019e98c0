import Foundation
import OpenCoreMLCLI

exit(await OpenCoreMLCommand.main(arguments: Array(CommandLine.arguments.dropFirst())))
