// Stand-in for <time.h> (Libc-1725.0.11: include/time.h): struct timespec, from <sys/types.h> here.
#include <sys/types.h>
