import Foundation
import Testing
@testable import Stowage

/// The image calls, on Linux, through a ``StorableImage`` of the tests' own: the calls `UIImage`
/// and `NSImage` get are these same generic ones (their conformances only encode and decode,
/// and are type-checked by the Darwin check in CI).
@Suite("Store: images")
struct StoreImagesTests {
    /// An image as its pixels: PNG is the PNG signature then the pixels; JPEG is the JPEG start
    /// marker, the quality in hundredths, then the pixels; no pixels is an image with no bitmap.
    struct TestImage: StorableImage, Equatable {
        static let png: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A]
        static let jpeg: [UInt8] = [0xFF, 0xD8, 0xFF]

        var pixels: [UInt8]

        func encodedImage(as format: ImageFormat) -> Data? {
            guard !pixels.isEmpty else { return nil }
            switch format {
            case .png: return Data(Self.png + pixels)
            case .jpeg(let quality): return Data(Self.jpeg + [UInt8((quality * 100).rounded())] + pixels)
            }
        }

        static func decodedImage(from data: Data) -> TestImage? {
            let bytes = [UInt8](data)
            if bytes.starts(with: png), bytes.count > png.count { return TestImage(pixels: Array(bytes.dropFirst(png.count))) }
            if bytes.starts(with: jpeg), bytes.count > jpeg.count + 1 { return TestImage(pixels: Array(bytes.dropFirst(jpeg.count + 1))) }
            return nil
        }
    }

    func image(_ value: UInt8) -> TestImage { TestImage(pixels: [value, value &+ 1]) }

    func bytes(_ folder: TestFolder, _ relative: String) throws -> [UInt8] {
        [UInt8](try Data(contentsOf: folder.file("container/Documents/" + relative)))
    }

    @Test("a single image is PNG by default and for .png, JPEG for .jpg and .JPEG with the quality asked for")
    func formatByName() throws {
        let folder = TestFolder()
        let store = folder.store()
        for name in ["cover.png", "cover", "Album/cover.PNG"] {
            try store.save(image(1), to: name, in: .documents)
            #expect(try bytes(folder, name).starts(with: TestImage.png), "\(name)")
            #expect(try store.retrieve(TestImage.self, from: name, in: .documents) == image(1))
        }
        for name in ["photo.jpg", "photo.JPEG", "photo.Jpeg"] {
            try store.save(image(2), to: name, in: .documents, jpegQuality: 0.8)
            #expect(try bytes(folder, name) == TestImage.jpeg + [80, 2, 3], "\(name)")
            #expect(try store.retrieve(TestImage.self, from: name, in: .documents) == image(2))
        }
        try store.save(image(3), to: "default.jpg", in: .documents)
        #expect(try bytes(folder, "default.jpg")[3] == 100, "quality 1 by default, as Disk saves")
    }

    @Test("a name that is neither PNG nor JPEG, or a quality outside 0...1, is refused and writes nothing")
    func refusals() throws {
        let folder = TestFolder()
        let store = folder.store()
        let gif = expectStowageError(.invalidArgument) { try store.save(image(1), to: "a.gif", in: .documents) }
        #expect(gif?.path == "a.gif" && gif?.reason?.contains(".png, .jpg or .jpeg") == true, "\(String(describing: gif))")
        expectStowageError(.invalidArgument) { try store.save(image(1), to: "a.jpg", in: .documents, jpegQuality: 1.5) }
        expectStowageError(.invalidArgument) { try store.save([image(1)], to: "album", in: .documents, format: .jpeg(quality: -0.1)) }
        #expect(!folder.exists("container/Documents/a.gif") && !folder.exists("container/Documents/a.jpg"))
        #expect(!folder.exists("container/Documents/album"))
    }

    @Test("an image that cannot be encoded is encodingFailed naming its file; a folder of images is then not written at all")
    func encodingFailed() throws {
        let folder = TestFolder()
        let store = folder.store()
        let single = expectStowageError(.encodingFailed) { try store.save(TestImage(pixels: []), to: "empty.png", in: .documents) }
        #expect(single?.path == "empty.png")
        let inFolder = expectStowageError(.encodingFailed) {
            try store.save([image(1), TestImage(pixels: []), image(3)], to: "album", in: .documents)
        }
        #expect(inFolder?.path == "album/1.png", "\(String(describing: inFolder))")
        #expect(!folder.exists("container/Documents/album") && !folder.exists("container/Documents/empty.png"))
    }

    @Test("a folder of images: 0.png, 1.png, ... back in numeric order; JPEG folders get .jpg")
    func folders() throws {
        let folder = TestFolder()
        let store = folder.store()
        let images = (0..<12).map { image(UInt8($0 * 2)) }
        try store.save(images, to: "album", in: .documents)
        #expect(folder.exists("container/Documents/album/11.png"))
        #expect(try store.retrieve([TestImage].self, from: "album", in: .documents) == images)
        try store.save([image(7)], to: "scans", in: .documents, format: .jpeg(quality: 0.5))
        #expect(try bytes(folder, "scans/0.jpg") == TestImage.jpeg + [50, 7, 8])
    }

    @Test("append keeps the folder's format (PNG for a new folder), or takes the one given")
    func append() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.append(image(1), to: "new", in: .documents)
        #expect(folder.exists("container/Documents/new/0.png"))
        try store.save([image(1), image(2)], to: "scans", in: .documents, format: .jpeg(quality: 0.5))
        try store.append(image(3), to: "scans", in: .documents, jpegQuality: 0.6)
        #expect(try bytes(folder, "scans/2.jpg") == TestImage.jpeg + [60, 3, 4])
        try store.append(image(4), to: "scans", in: .documents, format: .png)
        #expect(try bytes(folder, "scans/3.png").starts(with: TestImage.png))
        #expect(try store.retrieve([TestImage].self, from: "scans", in: .documents) == [image(1), image(2), image(3), image(4)])
    }

    @Test("a file that is not an image is decodingFailed naming it (and its index in a folder), where Disk skips it")
    func notAnImage() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("text".utf8), to: "notes.png", in: .documents)
        let single = expectStowageError(.decodingFailed) { try store.retrieve(TestImage.self, from: "notes.png", in: .documents) }
        #expect(single?.path == "notes.png")
        try store.save([image(1), image(2)], to: "album", in: .documents)
        try folder.write("not an image", to: "container/Documents/album/2.png")
        let inFolder = expectStowageError(.decodingFailed) { try store.retrieve([TestImage].self, from: "album", in: .documents) }
        #expect(inFolder?.path == "album/2.png" && inFolder?.reason?.contains("file 2") == true, "\(String(describing: inFolder))")
    }
}
