import Foundation
import Testing
@testable import Stowage

/// The calls people bring over from the `Disk` library: each must do what its Disk counterpart
/// does, or refuse; none may silently store something else (issue 11).
@Suite("Store: array forms as Disk users write them")
struct StoreDiskPortTests {
    static let messages = (0..<10).map { Message(id: $0, text: "m\($0)") }

    // MARK: Finding 1: an unlabelled array is appended element by element

    @Test("appending an array to a missing file stores its elements, not one nested array")
    func appendArrayToNewFile() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.append(Self.messages, to: "x.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "x.json", in: .documents) == Self.messages)
    }

    @Test("appending an array to an existing array adds its elements")
    func appendArrayToExistingFile() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Self.messages, to: "x.json", in: .documents)
        let more = [Message(id: 10, text: "m10"), Message(id: 11, text: "m11")]
        try store.append(more, to: "x.json", in: .documents)
        #expect(try store.retrieve([Message].self, from: "x.json", in: .documents) == Self.messages + more)
    }

    @Test("an array built by map, held in a variable or passed through a generic function is appended element by element")
    func appendArrayHoweverTyped() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.append((0..<3).map { Message(id: $0, text: "m\($0)") }, to: "x.json", in: .documents)
        let held: [Message] = [Message(id: 3, text: "m3")]
        try store.append(held, to: "x.json", in: .documents)
        try Self.appendGenerically([Message(id: 4, text: "m4"), Message(id: 5, text: "m5")], store: store, path: "x.json")
        #expect(try store.retrieve([Message].self, from: "x.json", in: .documents).map(\.id) == [0, 1, 2, 3, 4, 5])
    }

    @Test("a file of arrays: append([row]) adds one row; append(row) is refused, since its elements are not rows")
    func appendToArrayOfArrays() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save([[1, 2]], to: "matrix.json", in: .documents)
        try store.append([[3, 4]], to: "matrix.json", in: .documents)
        #expect(try store.retrieve([[Int]].self, from: "matrix.json", in: .documents) == [[1, 2], [3, 4]])

        let before = try folder.read("container/Documents/matrix.json")
        let error = expectStowageError(.decodingFailed) {
            try store.append([5, 6], to: "matrix.json", in: .documents)
        }
        #expect(error?.reason?.contains("append([element]") == true, "\(String(describing: error?.reason))")
        #expect(try folder.read("container/Documents/matrix.json") == before)
    }

    // MARK: Finding 2: [Data] appends numbered files

    @Test("appending [Data] to a missing folder creates numbered files")
    func appendDataArrayToNewFolder() throws {
        let folder = TestFolder()
        let store = folder.store()
        let blobs = [Data("a".utf8), Data("b".utf8)]
        try store.appendToFolder(contentsOf: blobs, to: "Folder/", in: .documents)
        #expect(try store.isFolder("Folder", in: .documents))
        #expect(try folder.read("container/Documents/Folder/0") == "a")
        #expect(try folder.read("container/Documents/Folder/1") == "b")
        #expect(try store.retrieveFolder(from: "Folder", in: .documents) == blobs)
    }

    @Test("appending [Data] (a variable or a map) to a numbered folder adds the next numbers")
    func appendDataArrayToExistingFolder() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder([Data("0".utf8), Data("1".utf8)], to: "Folder", in: .documents)
        let blobs = [Data("2".utf8)]
        try store.appendToFolder(contentsOf: blobs, to: "Folder/", in: .documents)
        try store.appendToFolder(contentsOf: (3..<5).map { Data("\($0)".utf8) }, to: "Folder", in: .documents)
        try Self.appendGenerically([Data("5".utf8)], store: store, path: "Folder")
        try Self.appendGenerically(Data("6".utf8), store: store, path: "Folder")
        #expect(try store.retrieveFolder(from: "Folder", in: .documents).map { String(decoding: $0, as: UTF8.self) }
            == ["0", "1", "2", "3", "4", "5", "6"])
    }

    // MARK: Finding 3: [Data] takes the folder form however it was produced

    @Test("saving a mapped [Data] writes a numbered folder, which retrieves as [Data]")
    func saveMappedDataArray() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.saveFolder((0..<12).map { Data([UInt8($0), 0]) }, to: "x", in: .documents)
        #expect(try store.isFolder("x", in: .documents))
        #expect(try store.retrieveFolder(from: "x", in: .documents) == (0..<12).map { Data([UInt8($0), 0]) })
    }

    @Test("in generic code, [Data] and Data take the folder and raw-file forms for save and retrieve")
    func genericDataForms() throws {
        let folder = TestFolder()
        let store = folder.store()
        let blobs = [Data("a".utf8), Data("b".utf8)]
        try Self.saveGenerically(blobs, store: store, path: "Blobs")
        #expect(try folder.read("container/Documents/Blobs/1") == "b")
        #expect(try Self.retrieveGenerically([Data].self, store: store, path: "Blobs") == blobs)

        try Self.saveGenerically(Data("raw".utf8), store: store, path: "blob.bin")
        #expect(try folder.read("container/Documents/blob.bin") == "raw")
        #expect(try Self.retrieveGenerically(Data.self, store: store, path: "blob.bin") == Data("raw".utf8))
    }

    // MARK: Finding 4: a value of another type is refused

    @Test("appending a value of another type is refused, naming the path and the type; the file is unchanged")
    func appendOtherType() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Self.messages, to: "messages.json", in: .documents)
        let before = try folder.snapshot("container/Documents")
        let error = expectStowageError(.decodingFailed) {
            try store.append("not a message", to: "messages.json", in: .documents)
        }
        #expect(error?.operation == .append)
        #expect(error?.path == "messages.json")
        #expect(error?.underlying is DecodingError)
        let reason = error?.reason ?? ""
        #expect(reason.contains("String") && reason.contains(#""text":"m0""#), "\(reason)")  // the first element
        #expect(try folder.snapshot("container/Documents") == before)
        #expect(try store.retrieve([Message].self, from: "messages.json", in: .documents) == Self.messages)
    }

    @Test("appending an array of another type is refused too, whole")
    func appendArrayOfOtherType() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(["a", "b"], to: "names.json", in: .documents)
        let before = try folder.read("container/Documents/names.json")
        expectStowageError(.decodingFailed) {
            try store.append(contentsOf: [Message(id: 1, text: "x")], to: "names.json", in: .documents)
        }
        #expect(try folder.read("container/Documents/names.json") == before)
    }

    @Test("an empty array accepts any type; a pretty-printed array is checked like a compact one",
          arguments: ["[]", "[\n]\n"])
    func emptyArrayAcceptsAnything(content: String) throws {
        let folder = TestFolder()
        try folder.write(content, to: "container/Documents/any.json")
        let store = folder.store()
        try store.append("first", to: "any.json", in: .documents)
        try store.append("second", to: "any.json", in: .documents)
        expectStowageError(.decodingFailed) { try store.append(3, to: "any.json", in: .documents) }
        #expect(try store.retrieve([String].self, from: "any.json", in: .documents) == ["first", "second"])
    }

    @Test("the check finds the first element however it is written: strings with brackets, escapes, nesting")
    func firstElementScanner() throws {
        struct Note: Codable, Equatable { var text: String; var tags: [String] }
        let folder = TestFolder()
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted]
        let store = folder.store(.json(encoder: encoder))
        let notes = [Note(text: #"a "quoted" ], { \ text"#, tags: ["[", "}"]), Note(text: "b", tags: [])]
        try store.save(notes, to: "notes.json", in: .documents)
        try store.append(Note(text: "c", tags: ["x"]), to: "notes.json", in: .documents)
        expectStowageError(.decodingFailed) { try store.append("c", to: "notes.json", in: .documents) }
        #expect(try store.retrieve([Note].self, from: "notes.json", in: .documents).map(\.text)
            == [notes[0].text, "b", "c"])
    }

    @Test("with property lists, a value of another type is refused the same way")
    func propertyListOtherType() throws {
        let folder = TestFolder()
        let store = folder.store(.propertyList())
        try store.save(Self.messages, to: "m.plist", in: .documents)
        let before = try folder.snapshot("container/Documents")
        expectStowageError(.decodingFailed) { try store.append("not a message", to: "m.plist", in: .documents) }
        #expect(try folder.snapshot("container/Documents") == before)
    }

    // MARK: Finding 5: [Data] from a folder of named files

    @Test("retrieving [Data] returns every regular file: numbered ones in numeric order, then the others by name")
    func retrieveNamedFiles() throws {
        let folder = TestFolder()
        for (name, content) in [("Nature/deer.png", "deer"), ("Nature/lion.png", "lion"), ("Nature/bird.png", "bird"),
                                ("Nature/diary.json", "{}"), ("Nature/10", "ten"), ("Nature/2.png", "two"),
                                ("Nature/0", "zero"), ("Nature/.hidden", "hidden"), ("Nature/Sub/inner", "inner")] {
            try folder.write(content, to: "container/Documents/" + name)
        }
        try FileManager.default.createSymbolicLink(atPath: folder.file("container/Documents/Nature/link").fileSystemPath,
                                                   withDestinationPath: "deer.png")
        let store = folder.store()
        let files = try store.retrieveFolder(from: "Nature", in: .documents)
        #expect(files.map { String(decoding: $0, as: UTF8.self) }
            == ["zero", "two", "ten", "bird", "deer", "{}", "lion"])
    }

    // MARK: Generic helpers: the static type is only `T`

    static func appendGenerically<T: Codable>(_ value: T, store: Store, path: String) throws {
        try store.append(value, to: path, in: .documents)
    }

    static func saveGenerically<T: Encodable>(_ value: T, store: Store, path: String) throws {
        try store.save(value, to: path, in: .documents)
    }

    static func retrieveGenerically<T: Decodable>(_ type: T.Type, store: Store, path: String) throws -> T {
        try store.retrieve(type, from: path, in: .documents)
    }
}

/// Every example of the `Disk` library's README (saoudrizwan/Disk, version 0.6), re-expressed
/// against Stowage, in the README's order. Where Stowage deliberately differs, a comment says how
/// and why. The `UIImage` examples are left out: UIKit does not exist on Linux, and Stowage has no
/// image conveniences; their folder forms are ported with `[Data]` and `fileExtension: "png"`.
@Suite("Disk's README, ported")
struct DiskReadmePortTests {
    /// Disk's model, as its README declares it.
    struct Message: Codable, Equatable {
        let title: String
        let body: String
    }

    struct Post: Codable, Equatable {
        let id: Int
        let userName: String
    }

    // Disk: `Disk.save(message, to: .caches, as: "message.json")`.
    // Stowage names the path first and the location after `in:`, as Disk's own append, remove
    // and exists do, so every call reads the same way; there is one Store value, not statics, so
    // tests and previews can point it at another container.
    @Test("Structs: save a message, save it in a folder, retrieve it")
    func structs() throws {
        let folder = TestFolder()
        let store = folder.store()
        let message = Message(title: "Hello", body: "How are you?")
        try store.save(message, to: "message.json", in: .caches)
        try store.save(message, to: "Folder/message.json", in: .caches)
        let retrievedMessage = try store.retrieve(Message.self, from: "Folder/message.json", in: .caches)
        #expect(retrievedMessage == message)
        #expect(folder.exists("container/Library/Caches/message.json"))
        #expect(folder.exists("container/Library/Caches/Folder/message.json"))
    }

    @Test("What about arrays of structs? save and retrieve [Message]")
    func arraysOfStructs() throws {
        let folder = TestFolder()
        let store = folder.store()
        var messages = [Message]()
        for i in 0..<5 {
            messages.append(Message(title: "\(i)", body: "..."))
        }
        try store.save(messages, to: "messages.json", in: .caches)
        let retrievedMessages = try store.retrieve([Message].self, from: "messages.json", in: .caches)
        #expect(retrievedMessages == messages)
    }

    // Disk decodes and rewrites the whole file per append; Stowage writes only the new
    // elements in place. Disk refuses a value that does not decode with the file's contents;
    // Stowage refuses one that does not decode as the first element's type (same outcome).
    @Test("Appending structs: one, then an array, to a file of the same type")
    func appendingStructs() throws {
        let folder = TestFolder()
        let store = folder.store()
        let messages = (0..<5).map { Message(title: "\($0)", body: "...") }
        try store.save(messages, to: "messages.json", in: .caches)
        let newMessage = Message(title: "5", body: "new")
        try store.append(newMessage, to: "messages.json", in: .caches)
        let newMessages = [Message(title: "6", body: "new"), Message(title: "7", body: "new")]
        try store.append(newMessages, to: "messages.json", in: .caches)  // Disk's append([T]): the elements
        #expect(try store.retrieve([Message].self, from: "messages.json", in: .caches)
            == messages + [newMessage] + newMessages)
        expectStowageError(.decodingFailed) { try store.append("not a message", to: "messages.json", in: .caches) }
    }

    @Test("Note: a single struct appended to an empty file is retrieved as an array")
    func appendToEmptyFile() throws {
        let folder = TestFolder()
        try folder.write("", to: "container/Library/Caches/single.json")
        let store = folder.store()
        let message = Message(title: "only", body: "one")
        try store.append(message, to: "single.json", in: .caches)
        #expect(try store.retrieve([Message].self, from: "single.json", in: .caches) == [message])
    }

    // Disk takes `encoder:` / `decoder:` on every call; Stowage takes them once, in the store's
    // format, so an append can never encode with other settings than the save did.
    @Test("Using a custom JSONEncoder or JSONDecoder: snake case keys")
    func customCoders() throws {
        let folder = TestFolder()
        let encoder = JSONEncoder()
        encoder.keyEncodingStrategy = .convertToSnakeCase
        let decoder = JSONDecoder()
        decoder.keyDecodingStrategy = .convertFromSnakeCase
        let store = Store(container: folder.container(), format: .json(encoder: encoder, decoder: decoder))
        let posts = [Post(id: 1, userName: "saoud")]
        try store.save(posts, to: "posts.json", in: .caches)
        try store.append(Post(id: 2, userName: "ben"), to: "posts.json", in: .caches)
        #expect(try folder.read("container/Library/Caches/posts.json").contains("user_name"))
        #expect(try store.retrieve([Post].self, from: "posts.json", in: .caches).map(\.id) == [1, 2])
    }

    // Disk's [UIImage] forms, with the images' PNG bytes: `save(images, to: .documents, as: "FolderName/")`
    // names them 0.png, 1.png, ...; Stowage does so with `fileExtension: "png"`. The trailing "/"
    // is accepted and changes nothing, as in Disk.
    @Test("Array of images (as PNG data): a folder of 0.png, 1.png, ...")
    func arrayOfImages() throws {
        let folder = TestFolder()
        let store = folder.store()
        let images = [Data("png 0".utf8), Data("png 1".utf8)]
        try store.saveFolder(images, to: "FolderName/", in: .documents, fileExtension: "png")
        #expect(folder.exists("container/Documents/FolderName/0.png"))
        #expect(folder.exists("container/Documents/FolderName/1.png"))
        #expect(try store.retrieveFolder(from: "FolderName", in: .documents) == images)
    }

    // Disk returns the folder's files in directory order; Stowage documents one: numbered files
    // in numeric order, then the others by name.
    @Test("The Nature folder: images and a JSON diary, all retrieved as [Data]; appending a goat")
    func natureFolder() throws {
        let folder = TestFolder()
        let store = folder.store()
        let deer = Data("deer".utf8), lion = Data("lion".utf8), bird = Data("bird".utf8)
        try store.save(deer, to: "Nature/deer.png", in: .documents)
        try store.save(lion, to: "Nature/lion.png", in: .documents)
        try store.save(bird, to: "Nature/bird.png", in: .documents)
        let diary = Message(title: "Dear diary", body: "Saw a lion.")
        try store.save(diary, to: "Nature/diary.json", in: .documents)
        let files = try store.retrieveFolder(from: "Nature", in: .documents)
        #expect(files.count == 4)
        #expect(files == [bird, deer, try Data(contentsOf: folder.file("container/Documents/Nature/diary.json")), lion])

        // Appending an image adds a numbered file: Nature holds no numbered file yet, so it is 0.
        let goat = Data("goat".utf8)
        try store.appendToFolder(goat, to: "Nature", in: .documents, fileExtension: "png")
        #expect(folder.exists("container/Documents/Nature/0.png"))
        #expect(try store.retrieveFolder(from: "Nature", in: .documents).first == goat)
    }

    @Test("Data: save and retrieve a video's bytes")
    func data() throws {
        let folder = TestFolder()
        let store = folder.store()
        let videoData = Data((0..<4096).map { UInt8($0 % 251) })
        try store.save(videoData, to: "anime.mp4", in: .documents)
        let retrievedData = try store.retrieve(Data.self, from: "anime.mp4", in: .documents)
        #expect(retrievedData == videoData)
    }

    @Test("Array of Data: a folder of files, retrieved as [Data]; appending Data and [Data]")
    func arrayOfData() throws {
        let folder = TestFolder()
        let store = folder.store()
        var data = [Data]()
        data.append(Data("video 0".utf8))
        data.append(Data("video 1".utf8))
        try store.saveFolder(data, to: "videos", in: .documents)
        let retrievedVideos = try store.retrieveFolder(from: "videos", in: .documents)
        #expect(retrievedVideos == data)

        let newDataObject = Data("new".utf8)
        try store.appendToFolder(newDataObject, to: "Folder/", in: .documents)
        try store.appendToFolder(contentsOf: [Data("newer".utf8), Data("newest".utf8)], to: "Folder/", in: .documents)
        #expect(try store.retrieveFolder(from: "Folder", in: .documents)
            == [newDataObject, Data("newer".utf8), Data("newest".utf8)])
    }

    // Disk's example runs the save on a GCD queue. Stowage is synchronous too, and its Store is
    // Sendable, so any thread or task may run it.
    @Test("Large files: saving off the main thread")
    func largeFiles() async throws {
        let folder = TestFolder()
        let store = folder.store()
        let largeData = Data(repeating: 7, count: 1 << 20)
        try await Task.detached {
            try store.save(largeData, to: "Movies/spiderman.mp4", in: .documents)
        }.value
        #expect(try store.retrieve(Data.self, from: "Movies/spiderman.mp4", in: .documents) == largeData)
    }

    // Disk's statics (`Disk.totalCapacity`, ...) are optional Ints; Stowage's figures come from
    // one `VolumeCapacity` value, or an error saying why they could not be read.
    @Test("Volume information: total, available, for important and opportunistic usage")
    func volumeInformation() throws {
        let folder = TestFolder()
        let capacity = try folder.container().capacity(of: .documents)
        #expect(capacity.totalBytes > 0)
        #expect(capacity.availableBytes <= capacity.totalBytes)
        #expect(capacity.availableForImportantUsageBytes >= capacity.availableBytes)
        #expect(capacity.availableForOpportunisticUsageBytes <= capacity.availableBytes)
    }

    @Test("Helper methods: clear, remove, exists, move, rename, url, doNotBackup and backup")
    func helperMethods() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("cached".utf8), to: "feed.json", in: .caches)
        try store.clear(.caches)
        #expect(try !store.exists("feed.json", in: .caches))

        try store.save(Data("video".utf8), to: "video.mp4", in: .documents)
        try store.remove("video.mp4", from: .documents)

        // Disk's `exists` returns false for any problem; Stowage's throws for an invalid path
        // (absolute, `..`) so that a typo is not read as "missing".
        try store.saveFolder([Data("photo".utf8)], to: "album", in: .documents)
        var found = false
        if try store.exists("album", in: .documents) {
            found = true
        }
        #expect(found)
        expectStowageError(.invalidPath) { try store.exists("../album", in: .documents) }

        // Disk: `Disk.move("album/", in: .documents, to: .caches)`; Stowage says `from:` and `to:`.
        try store.move("album/", from: .documents, to: .caches)
        #expect(try store.isFolder("album", in: .caches))

        // Disk: `Disk.rename("currentName.json", in: .documents, to: "newName.json")`.
        try store.save(Data("{}".utf8), to: "currentName.json", in: .documents)
        try store.rename("currentName.json", to: "newName.json", in: .documents)
        #expect(try store.exists("newName.json", in: .documents))

        // Disk: `Disk.url(for: "album/", in: .documents)`; the location's own folder is
        // `container.url(for: .caches)`.
        let url = try store.url(for: "album/", in: .caches)
        #expect(url.path(percentEncoded: false) == folder.file("container/Library/Caches/album").path(percentEncoded: false)
            || url.path(percentEncoded: false) == folder.file("container/Library/Caches/album/").path(percentEncoded: false))
        #expect(try store.container.url(for: .caches).appending(path: "album").standardizedFileURL.path(percentEncoded: false)
            .hasPrefix(folder.file("container/Library/Caches").path(percentEncoded: false)))

        // Disk: `doNotBackup` and `backup`.
        try store.saveFolder([Data("photo".utf8)], to: "album", in: .documents)
        try store.mark("album", in: .documents, .excludedFromBackup)
        #expect(try store.markers(of: "album", in: .documents).contains(.excludedFromBackup))
        try store.unmark("album", in: .documents, .excludedFromBackup)
        #expect(try !store.markers(of: "album", in: .documents).contains(.excludedFromBackup))
    }

    // Disk's URL counterparts (`Disk.remove(url)`, `Disk.exists(url)`, `Disk.move(url, to:)`,
    // `Disk.isFolder(url)`) take any URL; Stowage works by location and relative path only, so
    // nothing can reach outside the container. `url(for:in:)` hands a URL to other APIs.
    @Test("URL counterparts: by path and location instead")
    func urlCounterparts() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Data("{}".utf8), to: "file.json", in: .documents)
        let fileUrl = try store.url(for: "file.json", in: .documents)
        #expect(FileManager.default.fileExists(atPath: fileUrl.path(percentEncoded: false)))
        #expect(try !store.isFolder("file.json", in: .documents))
        try store.move("file.json", from: .documents, to: .documents, as: "Folder/newFileName.json")
        #expect(try store.exists("Folder/newFileName.json", in: .documents))
        try store.remove("Folder/newFileName.json", from: .documents)
        #expect(try !store.exists("Folder/newFileName.json", in: .documents))
    }

    // Disk: check `exists`, `remove`, catch `NSError`. Stowage's `save` replaces a file
    // atomically, so the check is not needed; its errors are `StowageError` values with a code,
    // the operation, the location and the path.
    @Test("Debugging: removing a file that does not exist")
    func debugging() throws {
        let folder = TestFolder()
        let store = folder.store()
        do {
            try store.remove("posts.json", from: .documents)
            Issue.record("removing a missing file must throw")
        } catch let error as StowageError {
            #expect(error.code == .notFound)
            #expect(error.path == "posts.json")
            #expect(error.description.contains("posts.json"))
        }
    }

    @Test("A word from the developer: save network data, retrieve it as [Post]; clear tmp")
    func wordFromTheDeveloper() throws {
        let folder = TestFolder()
        let store = folder.store()
        let data = Data(#"[{"id":1,"userName":"a"},{"id":2,"userName":"b"}]"#.utf8)
        try store.save(data, to: "posts.json", in: .caches)
        let posts = try store.retrieve([Post].self, from: "posts.json", in: .caches)
        #expect(posts.map(\.id) == [1, 2])
        try store.save(Data("scratch".utf8), to: "scratch", in: .temporary)
        try store.clear(.temporary)
        #expect(try !store.exists("scratch", in: .temporary))
    }

    // Disk strips leading slashes ("/a" is "a"); Stowage refuses an absolute path, so that a
    // path meant for elsewhere is not written into the container. Both ignore a trailing "/"
    // on folders; Disk refuses it for a Codable file, Stowage folds it away ("a/" is the file a).
    @Test("Paths: a trailing slash is folded away, a leading slash is refused")
    func slashes() throws {
        let folder = TestFolder()
        let store = folder.store()
        try store.save(Message(title: "t", body: "b"), to: "Folder/message.json/", in: .documents)
        #expect(try store.retrieve(Message.self, from: "Folder/message.json", in: .documents).title == "t")
        let error = expectStowageError(.invalidPath) {
            try store.save(Message(title: "t", body: "b"), to: "/Folder/message.json", in: .documents)
        }
        #expect(error?.reason?.contains("absolute") == true)
    }
}

@Suite("Store: collections other than Array append their elements too")
struct StoreCollectionAppendTests {
    @Test("a Set and a ContiguousArray add their elements, on a new file and an existing one")
    func collections() throws {
        let folder = TestFolder()  // bound, so it lives as long as the test
        let store = folder.store()
        try store.append(Set([1, 2]), to: "set.json", in: .documents)
        #expect(try store.retrieve([Int].self, from: "set.json", in: .documents).sorted() == [1, 2])
        try store.append(ContiguousArray([3, 4]), to: "set.json", in: .documents)
        #expect(try store.retrieve([Int].self, from: "set.json", in: .documents).sorted() == [1, 2, 3, 4])
        try store.append(ContiguousArray([8]), to: "new.json", in: .documents)
        #expect(try store.retrieve([Int].self, from: "new.json", in: .documents) == [8])
    }
}
