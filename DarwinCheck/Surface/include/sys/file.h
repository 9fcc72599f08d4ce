// Stand-in for <sys/file.h> (xnu-11417.101.15: bsd/sys/file.h), which includes <sys/fcntl.h>
// for flock(2) and LOCK_*.
#include <sys/fcntl.h>
