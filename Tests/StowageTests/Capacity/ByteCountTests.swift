import Foundation
import Testing
@testable import Stowage

@Suite("ByteCount")
struct ByteCountTests {
    @Test("parses bytes, decimal and binary units, fractions and spaces",
          arguments: [
              ("4096", 4096), ("0", 0), ("512MB", 512_000_000), ("512 MB", 512_000_000), ("512mb", 512_000_000),
              ("1.5GiB", 1_610_612_736), ("1.5 GiB", 1_610_612_736), ("2G", 2_147_483_648), ("10K", 10_240),
              ("1kB", 1000), ("1KB", 1000), ("1KiB", 1024), ("3 TB", 3_000_000_000_000), ("0.5 MiB", 524_288),
              ("7 B", 7), ("7 bytes", 7), (" 42 ", 42), ("1.25kB", 1250), ("8EiB", -1), ("7 EiB", 8_070_450_532_247_928_832),
              (".5 kB", 500), ("1.0", 1),
          ] as [(String, Int64)])
    func parses(text: String, bytes: Int64) throws {
        if bytes < 0 {
            expectStowageError(.invalidArgument) { try ByteCount(parsing: text) }
        } else {
            #expect(try ByteCount(parsing: text).bytes == bytes)
        }
    }

    @Test("takes percentages of a volume's total")
    func percentages() throws {
        #expect(try ByteCount(parsing: "10%", percentOf: 500_000_000_000).bytes == 50_000_000_000)
        #expect(try ByteCount(parsing: "0.5%", percentOf: 1000).bytes == 5)
        #expect(try ByteCount(parsing: "100%", percentOf: 1234).bytes == 1234)
        let noVolume = expectStowageError(.invalidArgument) { try ByteCount(parsing: "10%") }
        #expect(noVolume?.reason?.contains("(10%)") == false, "where a percentage cannot be, it is not offered: \(String(describing: noVolume))")
        expectStowageError(.invalidArgument) { try ByteCount(parsing: "101%", percentOf: 1000) }
        #expect(try ByteCount.percentage(parsing: " 2.5 % ") == 2.5)
        #expect(try ByteCount.percentage(parsing: "512MB") == nil)
    }

    @Test("percentages take the size grammar's numbers: no hexadecimal, exponent or sign",
          arguments: ["0x10%", "1e1%", "+5%", "%", "5%%", "1.2.3%", "-1%", "101%", "inf%", "nan%"])
    func rejectsPercentages(text: String) {
        let error = expectStowageError(.invalidArgument) { try ByteCount.percentage(parsing: text) }
        #expect(error?.description.contains("is not a size") == true)
        expectStowageError(.invalidArgument) { try ByteCount(parsing: text, percentOf: 1000) }
    }

    @Test("rejects malformed sizes, saying what is accepted",
          arguments: ["12XB", "-5MB", "1e400", "MB", "", "   ", "1.5", "12 12", "1,5GB", "0x10", "five", "1e3", "--1", "1.2.3GB"])
    func rejects(text: String) {
        let error = expectStowageError(.invalidArgument) { try ByteCount(parsing: text) }
        #expect(error?.description.contains("is not a size") == true)
        #expect(error?.description.contains("512MB") == true, "the message lists what is accepted")
        #expect(error?.operation == .parseSize)
    }

    @Test("the largest size is 8 EiB less one byte; 8 EiB itself is refused saying so")
    func largest() throws {
        #expect(try ByteCount(parsing: "9223372036854775807").bytes == Int64.max)
        for text in ["8EiB", "9223372036854775808", "8.0 EiB", "9.3EB"] {
            do {
                _ = try ByteCount(parsing: text)
                Issue.record("\(text) was accepted")
            } catch let error as StowageError {
                #expect(error.reason?.contains("8 EiB or more") == true && error.reason?.contains("9223372036854775807 bytes") == true,
                        "\(error)")
                #expect(error.reason?.contains("larger than 8 EiB") == false, "never 'larger than 8 EiB' for 8 EiB itself")
            }
        }
    }

    @Test("formats in one system of units with the chosen precision",
          arguments: [
              (0, ByteCountStyle.decimal, 1, "0 B"), (999, .decimal, 1, "999 B"), (1000, .decimal, 1, "1 kB"),
              (1500, .decimal, 1, "1.5 kB"), (1_234_567, .decimal, 2, "1.23 MB"), (999_950, .decimal, 1, "1 MB"),
              (512_000_000, .decimal, 1, "512 MB"), (1_610_612_736, .binary, 1, "1.5 GiB"), (1_610_612_736, .decimal, 1, "1.6 GB"),
              (1023, .binary, 1, "1023 B"), (1024, .binary, 0, "1 KiB"), (1_048_575, .binary, 1, "1 MiB"),
              (Int64.max, .binary, 1, "8 EiB"), (-1500, .decimal, 1, "-1.5 kB"),
          ] as [(Int64, ByteCountStyle, Int, String)])
    func formats(bytes: Int64, style: ByteCountStyle, precision: Int, text: String) {
        #expect(ByteCount(bytes).formatted(style, precision: precision) == text)
    }

    /// The units as the README defines them, written out here rather than taken from the code
    /// under test: the oracle of the round trip.
    static let unitBytes: [String: Double] = [
        "B": 1, "kB": 1e3, "MB": 1e6, "GB": 1e9, "TB": 1e12, "PB": 1e15, "EB": 1e18,
        "KiB": 1024, "MiB": 1_048_576, "GiB": 1_073_741_824, "TiB": 1_099_511_627_776,
        "PiB": 1_125_899_906_842_624, "EiB": 1_152_921_504_606_846_976,
    ]

    @Test("parsing what it formats gives back the count within the printed precision (seeded: the seed is printed)")
    func roundTrips() throws {
        var generator = SeededRandom(for: "roundTrips")
        for _ in 0..<2000 {
            let bytes = Int64.random(in: 0...(Int64(1) << Int64.random(in: 1...61, using: &generator)), using: &generator)
            for style in [ByteCountStyle.decimal, .binary] {
                for precision in 0...3 {
                    let text = ByteCount(bytes).formatted(style, precision: precision)
                    let parsed = try ByteCount(parsing: text).bytes
                    let symbol = String(text.split(separator: " ").last!)
                    let unit = try #require(Self.unitBytes[symbol], "\(text): a unit outside the README's table")
                    #expect(style == .decimal ? !symbol.contains("i") : (symbol == "B" || symbol.contains("i")),
                            "\(text): one system of units per style")
                    // Printed with `precision` decimals: off by at most half the last digit's unit.
                    let tolerance = unit * 0.5 * pow(10, -Double(precision)) + 1
                    #expect(abs(Double(parsed) - Double(bytes)) <= tolerance,
                            "\(bytes) -> \(text) -> \(parsed) (seed \(generator.seed))")
                }
            }
        }
    }

    @Test("formats rates in bytes or bits per second")
    func rates() {
        #expect(ByteCount.formattedRate(bytesPerSecond: 12_500_000) == "12.5 MB/s")
        #expect(ByteCount.formattedRate(bytesPerSecond: 12_500_000, bits: true) == "100 Mbit/s")
        #expect(ByteCount.formattedRate(bytesPerSecond: 1024 * 1024, style: .binary) == "1 MiB/s")
        #expect(ByteCount.formattedRate(bytesPerSecond: 100, bits: true) == "800 bit/s")
    }

    @Test("encodes as a plain number of bytes")
    func codable() throws {
        #expect(String(decoding: try JSONEncoder().encode(ByteCount(42)), as: UTF8.self) == "42")
        #expect(try JSONDecoder().decode(ByteCount.self, from: Data("7".utf8)) == 7)
    }
}
