// Stand-in for <fcntl.h> (Libc-1725.0.11: include/fcntl.h), which includes <sys/fcntl.h>.
#include <sys/fcntl.h>
