// Inputs that do not fit in memory: endless devices and a file larger than the free address
// space, read under RLIMIT_AS in a forked child. mapout::istream reads what is asked, in bounded
// memory, as std::ifstream does; mapped_input fails with a message that says why.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/resource.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <string>

#include "address_space_limit.hpp"
#include "child_process.hpp"
#include "mapout/input.hpp"
#include "mapout/istream.hpp"
#include "temp_dir.hpp"

namespace {

using mapout::test::limit_address_space;
using mapout::test::spawn;
using mapout::test::temp_dir;
using mapout::test::wait_for;

constexpr std::size_t mib = std::size_t{1} << 20;

// Exit statuses of the children: 0 when everything held, else the first check that did not.
enum check : int { held = 0, no_limit, not_open, short_read, wrong_bytes, wrong_state, message };

// `mebibytes` in 1 MiB reads, then peek, get and ignore, with 64 MiB of address space to spare.
int read_endless(const char* device, int mebibytes, bool zeroes) {
  if (!limit_address_space(64 * mib)) return no_limit;
  mapout::istream in(device, std::ios::binary);
  if (!in.is_open()) return not_open;
  std::string chunk(mib, '-');
  for (int i = 0; i < mebibytes; ++i) {
    if (!in.read(chunk.data(), static_cast<std::streamsize>(chunk.size()))) return short_read;
    if (zeroes && chunk != std::string(mib, '\0')) return wrong_bytes;
  }
  const int peeked = in.peek();
  if (in.get() != peeked || !in.ignore(64 * mib)) return short_read;
  if (in.gcount() != static_cast<std::streamsize>(64 * mib) || !in.good()) return wrong_state;
  return held;
}

TEST(UnboundedInput, DevZeroReadsWhatIsAskedInBoundedMemory) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  EXPECT_EQ(wait_for(spawn([] { return read_endless("/dev/zero", 256, true); })), held);
}

TEST(UnboundedInput, DevUrandomReadsWhatIsAskedInBoundedMemory) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  EXPECT_EQ(wait_for(spawn([] { return read_endless("/dev/urandom", 96, false); })), held);
}

// mapped_input reads all of what it cannot map: an endless device never ends, and says so.
TEST(UnboundedInput, MappedInputOfAnEndlessDeviceFailsSayingWhy) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  EXPECT_EQ(wait_for(spawn([] {
              if (!limit_address_space(64 * mib)) return int{no_limit};
              mapout::mapped_input in;
              if (in.open("/dev/zero") != std::error_code(ENOMEM, std::system_category())) {
                return int{wrong_state};
              }
              const std::string want =
                  "mapout: read (no memory for the whole input) '/dev/zero': " +
                  std::string(std::strerror(ENOMEM));
              return in.error_message() == want ? int{held} : int{message};
            })),
            held);
}

// A 4 GiB sparse file with lines at its start and end, read with 256 MiB of address space to
// spare: mapout::istream reads it through its buffer; mapped_input cannot map it and says why.
TEST(UnboundedInput, FileLargerThanTheFreeAddressSpaceIsRead) {
  SKIP_UNLESS_ADDRESS_SPACE_CAN_BE_LIMITED();
  temp_dir dir;
  const auto path = dir / "huge";
  const off_t size = off_t{4} << 30;
  {
    const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ASSERT_GE(fd, 0);
    ASSERT_EQ(::pwrite(fd, "head\n", 5, 0), 5);
    ASSERT_EQ(::pwrite(fd, "\ntail\n", 6, size - 6), 6);
    ASSERT_EQ(::close(fd), 0);
  }
  EXPECT_EQ(wait_for(spawn([&] {
              if (!limit_address_space(256 * mib)) return int{no_limit};
              mapout::istream in(path, std::ios::binary);
              if (!in.is_open()) return int{not_open};
              std::string line;
              if (!std::getline(in, line) || line != "head") return int{wrong_bytes};
              in.seekg(size / 2);
              std::string middle(mib, '-');
              in.read(middle.data(), static_cast<std::streamsize>(middle.size()));
              if (!in || middle != std::string(mib, '\0')) return int{wrong_bytes};
              in.seekg(-5, std::ios::end);
              if (!std::getline(in, line) || line != "tail") return int{wrong_bytes};
              if (in.get() != EOF || !in.eof() || in.bad()) return int{wrong_state};
              in.clear();
              in.seekg(-6, std::ios::end);
              if (in.tellg() != size - 6 || in.get() != '\n') return int{wrong_state};

              mapout::mapped_input whole;
              if (whole.open(path) != std::error_code(ENOMEM, std::system_category())) {
                return int{wrong_state};
              }
              const std::string want =
                  "mapout: map (the file is larger than the free address "
                  "space) '" +
                  path.string() + "': " + std::strerror(ENOMEM);
              return whole.error_message() == want ? int{held} : int{message};
            })),
            held);
}

}  // namespace
