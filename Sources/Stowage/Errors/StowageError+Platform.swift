// The platform target (`StowagePlatform`: system calls, descriptors, `Errno`, `Signal`) is part of
// the library: its public types (`Errno`, `Signal`) are the library's, and its `package` calls
// serve the library's folders and the command. See <doc:Architecture>.
@_exported import StowagePlatform
