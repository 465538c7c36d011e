// The C API's open files, listed so that mapout_flush(NULL) flushes every one, as fflush(NULL)
// flushes every stdio stream.
#include <cerrno>
#include <mutex>

#include "c/c_handle.hpp"

namespace mapout::detail {
namespace {

// Guards the list, not the files: each file is still used by one thread at a time.
std::mutex& list_lock() noexcept {
  static std::mutex lock;
  return lock;
}

c_handle* first_open = nullptr;

}  // namespace

void list_open(c_handle& h) noexcept {
  const std::lock_guard<std::mutex> hold(list_lock());
  h.previous_open = nullptr;
  h.next_open = first_open;
  if (first_open != nullptr) first_open->previous_open = &h;
  first_open = &h;
}

void unlist_open(c_handle& h) noexcept {
  const std::lock_guard<std::mutex> hold(list_lock());
  if (h.previous_open != nullptr) {
    h.previous_open->next_open = h.next_open;
  } else if (first_open == &h) {
    first_open = h.next_open;
  }
  if (h.next_open != nullptr) h.next_open->previous_open = h.previous_open;
  h.previous_open = h.next_open = nullptr;
}

int flush_every_open_file() noexcept {
  const std::lock_guard<std::mutex> hold(list_lock());
  int result = 0;
  int first_errno = 0;
  for (c_handle* h = first_open; h != nullptr; h = h->next_open) {
    if (mapout_flush(h) != 0 && result == 0) {
      result = -1;
      first_errno = errno;
    }
  }
  if (result != 0) errno = first_errno;
  return result;
}

}  // namespace mapout::detail
