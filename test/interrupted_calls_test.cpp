// A signal that interrupts a system call costs nothing: every call that can fail with EINTR is
// made again, above the system-call seam, so each one here is interrupted every other time.
#include <gtest/gtest.h>

#include <cerrno>
#include <string>

#include "mapout/ostream.hpp"
#include "platform/sys.hpp"
#include "strategies.hpp"
#include "system_call_override.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::detail::real_system_calls;
using mapout::detail::system_calls;
using mapout::test::read_file;
using mapout::test::system_call_override;
using mapout::test::temp_dir;

// Fails every other call with EINTR and counts the failures; the others are the real call.
template <auto Entry>
struct interrupted;

// Table: system_calls, or platform::own_calls for a system's own entries.
template <class Table, class Result, class... Args, Result (*Table::*Entry)(Args...)>
struct interrupted<Entry> {
  static inline int interruptions = 0;

  static Result call(Args... args) {
    static int calls = 0;
    if (++calls % 2 == 1) {
      ++interruptions;
      errno = EINTR;
      return Result(-1);
    }
    return (real_system_calls().*Entry)(args...);
  }
};

template <auto Entry>
system_call_override<Entry> interrupting() {
  return system_call_override<Entry>(&interrupted<Entry>::call);
}

TEST(InterruptedCalls, EveryStrategyRetriesAndLosesNothing) {
  mapout::options on_sigbus = mapout::test::mapped(64 << 10);
  on_sigbus.extension = mapout::extension::on_fault;
  const mapout::test::strategy_case cases[] = {{"mapped", mapout::test::mapped(64 << 10)},
                                               {"on_sigbus", on_sigbus},
                                               {"buffered", mapout::test::buffered(1000)}};
  std::string bytes(3 << 20, '\0');
  for (std::size_t i = 0; i < bytes.size(); ++i) bytes[i] = static_cast<char>('a' + i % 23);
  for (const auto& c : cases) {
    SCOPED_TRACE(c.name);
    temp_dir dir;
    {
      const auto open = interrupting<&system_calls::open>();
      const auto write = interrupting<&system_calls::write>();
      const auto ftruncate = interrupting<&system_calls::ftruncate>();
      const auto fallocate = interrupting<&system_calls::fallocate>();
      const auto madvise = interrupting<&system_calls::madvise>();
      const auto pread = interrupting<&system_calls::pread>();
      const auto fsync = interrupting<&system_calls::fsync>();
      mapout::ostream out(dir / "f", std::ios::out, c.opts);
      ASSERT_TRUE(out.is_open()) << out.error_message();
      for (std::size_t done = 0; done < bytes.size(); done += 1000) {
        out.write(bytes.data() + done,
                  static_cast<std::streamsize>(std::min<std::size_t>(1000, bytes.size() - done)));
        if (done % (256 << 10) == 0) out.publish();
      }
      out.persist();
      out.close();
      ASSERT_TRUE(out) << out.error_message();
    }
    EXPECT_TRUE(read_file(dir / "f") == bytes);
  }
  EXPECT_GT(interrupted<&system_calls::open>::interruptions, 0);
  EXPECT_GT(interrupted<&system_calls::write>::interruptions, 0);
  EXPECT_GT(interrupted<&system_calls::ftruncate>::interruptions, 0);
  EXPECT_GT(interrupted<&system_calls::fallocate>::interruptions, 0);
#ifndef _WIN32
  // Windows populates no pages ahead (docs/windows.md): it makes no madvise to interrupt.
  EXPECT_GT(interrupted<&system_calls::madvise>::interruptions, 0);
#endif
  EXPECT_GT(interrupted<&system_calls::pread>::interruptions, 0);
  EXPECT_GT(interrupted<&system_calls::fsync>::interruptions, 0);
}

}  // namespace
