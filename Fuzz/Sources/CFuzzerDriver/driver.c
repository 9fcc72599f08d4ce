// Only the header matters: LLVMFuzzerRunDriver itself comes from libFuzzer.
#include "CFuzzerDriver.h"
