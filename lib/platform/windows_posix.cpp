// The few POSIX functions lib/ calls outside the system-call table, as Windows answers them.
#include <windows.h>

#include <clocale>

#include "windows_posix/posix_extras.h"

long sysconf(int name) {
  if (name != _SC_PAGESIZE) return -1;
  SYSTEM_INFO info;
  GetSystemInfo(&info);
  return static_cast<long>(info.dwAllocationGranularity);
}

int getrlimit(int, struct rlimit* limit) {
  limit->rlim_cur = RLIM_INFINITY;
  limit->rlim_max = RLIM_INFINITY;
  return 0;
}

char* nl_langinfo(int) {
  return std::localeconv()->decimal_point;
}
