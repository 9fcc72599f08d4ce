// Stand-in for <sys/param.h> (xnu-11417.101.15: bsd/sys/param.h, bsd/sys/syslimits.h).
#ifndef STOWAGE_STANDIN_SYS_PARAM_H
#define STOWAGE_STANDIN_SYS_PARAM_H
#define MAXPATHLEN 1024
#endif
