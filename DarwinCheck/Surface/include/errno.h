// Stand-in for <errno.h> (Libc-1725.0.11: include/errno.h), which includes <sys/errno.h>.
#include <sys/errno.h>
