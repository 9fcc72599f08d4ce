// The floor of a command's start on Stowage's stack: a Swift command on swift-argument-parser with one
// option, one flag and one argument, linked as `stowage` is (Swift's libraries and Foundation inside).
// Benchmarks/everyday.sh times its `--version` beside `stowage --version`: what parsing costs any such
// command, against what Stowage's larger tree of commands and options adds.
import ArgumentParser
import Foundation

struct ParserHello: ParsableCommand {
    static let configuration = CommandConfiguration(commandName: "parser-hello", version: "1.0")

    @Option(help: "Who to greet.") var name = "world"
    @Flag(help: "Print JSON.") var json = false
    @Argument(help: "Paths.") var paths: [String] = []

    func run() {
        let path = URL(fileURLWithPath: paths.first ?? "/").path
        print(json ? "{\"hello\": \"\(name)\", \"path\": \"\(path)\"}" : "hello \(name) \(path)")
    }
}

ParserHello.main()
