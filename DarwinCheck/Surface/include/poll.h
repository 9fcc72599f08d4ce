// Stand-in for <poll.h> (Libc-1725.0.11: include/poll.h), which includes <sys/poll.h>.
#include <sys/poll.h>
