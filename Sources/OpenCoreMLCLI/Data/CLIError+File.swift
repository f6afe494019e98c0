extension CLIError {
    /// A problem with a data or input file, printed as `path: problem`.
    static func file(_ path: String, _ problem: String) -> CLIError {
        .model("\(path): \(problem)")
    }
}
