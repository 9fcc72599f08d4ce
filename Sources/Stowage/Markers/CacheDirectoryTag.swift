/// The `CACHEDIR.TAG` file of the Cache Directory Tagging Specification, which backup tools
/// (`tar --exclude-caches`, borg, restic, ...) recognise to skip a cache folder.
///
/// Stowage writes it at the top of the caches location when it creates that folder (the Store
/// does, `CacheDirectoryTag.ensure(in:)`), and keeps it there: ``Store/clear(_:)`` and sweeps
/// never remove it.
enum CacheDirectoryTag {
    static let name = "CACHEDIR.TAG"
    static let content = """
        Signature: 8a477f597d28d172789f06886806bc55
        # This file is a cache directory tag created by Stowage.
        # For information about cache directory tags, see:
        #\thttps://bford.info/cachedir/

        """
}
