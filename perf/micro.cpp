// Per-call cost of each way to hand bytes to a file: mapout::ostream through its static type (the
// inline path) and through std::ostream& (the standard path), the raw streambuf, mapout::cursor and
// std::ofstream, for sputc (beside stdio's putc_unlocked and a hand-written buffer loop), put,
// short writes, << of a literal and of an int, a formatted line (<<, print, fmt::output_file,
// to_chars into a buffer), and overflow.
//
// Each benchmark iteration makes `batch` calls; the files live in a fresh directory under /dev/shm
// (or $MAPOUT_MICRO_DIR) and are rewound every 16 MiB, so that the calls, not page faults, are
// measured. MAPOUT_MICRO_ITERATIONS=n fixes the iteration count, for instruction counts under
// callgrind: the difference between two counts divided by the calls between them is per call.
#include <benchmark/benchmark.h>
#include <fcntl.h>
#include <fmt/compile.h>
#include <fmt/os.h>
#include <unistd.h>

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <optional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include "mapout/cursor.hpp"
#include "mapout/format.hpp"
#include "mapout/ostream.hpp"
#include "mapout/streambuf.hpp"

namespace {

constexpr int batch = 1024;
constexpr std::uint64_t rewind_every = std::uint64_t{16} << 20;

const std::filesystem::path& directory() {
  static const std::filesystem::path path = [] {
    const char* base = std::getenv("MAPOUT_MICRO_DIR");
    std::string pattern = std::string(base != nullptr ? base : "/dev/shm") + "/mapout-micro-XXXXXX";
    if (::mkdtemp(pattern.data()) == nullptr) std::abort();
    return std::filesystem::path(pattern);
  }();
  return path;
}

std::filesystem::path file_for(const benchmark::State& state) {
  return directory() / std::to_string(state.thread_index());
}

// The writers, each holding its file open for one benchmark.
struct mapout_static {
  explicit mapout_static(const std::filesystem::path& path, const mapout::options& opts = {})
      : out(path, std::ios::out, opts) {}
  mapout::ostream& stream() { return out; }
  void rewind() { out.seekp(0); }
  mapout::ostream out;
};

// The same stream seen as a std::ostream&, as generic code sees it.
struct mapout_generic : mapout_static {
  using mapout_static::mapout_static;
  std::ostream& stream() { return out; }
};

struct ofstream_writer {
  explicit ofstream_writer(const std::filesystem::path& path) : out(path) {}
  std::ostream& stream() { return out; }
  void rewind() { out.seekp(0); }
  std::ofstream out;
};

// The raw buffers, called through std::streambuf& as a generic writer would.
struct mapout_buffer {
  explicit mapout_buffer(const std::filesystem::path& path, const mapout::options& opts = {}) {
    buf.open(path, std::ios::out, opts);
  }
  std::streambuf& buffer() { return *benchmark_opaque(&buf); }
  void rewind() { buf.pubseekpos(0); }
  static std::streambuf* benchmark_opaque(std::streambuf* b) {
    benchmark::DoNotOptimize(b);
    return b;
  }
  mapout::streambuf buf;
};

struct filebuf_writer {
  explicit filebuf_writer(const std::filesystem::path& path) { buf.open(path, std::ios::out); }
  std::streambuf& buffer() { return *mapout_buffer::benchmark_opaque(&buf); }
  void rewind() { buf.pubseekpos(0); }
  std::filebuf buf;
};

// stdio, the bytes workload's peer: putc_unlocked bumps the FILE's cursor as sputc bumps pptr.
struct stdio_writer {
  explicit stdio_writer(const std::filesystem::path& path) : file(std::fopen(path.c_str(), "w")) {
    if (file == nullptr) std::abort();
  }
  stdio_writer(const stdio_writer&) = delete;
  stdio_writer& operator=(const stdio_writer&) = delete;
  ~stdio_writer() { std::fclose(file); }
  void rewind() { std::fseek(file, 0, SEEK_SET); }
  std::FILE* file;
};

const char payload[64] = "abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_";

// Runs `call` batch times per iteration, rewinding the file every 16 MiB.
template <typename Writer, typename Call>
void run(benchmark::State& state, Writer& writer, std::uint64_t bytes_per_call, Call call) {
  std::uint64_t written = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) call(writer, i);
    written += bytes_per_call * batch;
    if (written >= rewind_every) {
      writer.rewind();
      written = 0;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

template <typename Writer>
void sputc(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, 1,
      [](Writer& w, int i) { w.buffer().sputc(static_cast<char>('a' + (i & 15))); });
}

void putc_stdio(benchmark::State& state) {
  stdio_writer writer(file_for(state));
  run(state, writer, 1, [](stdio_writer& w, int i) { putc_unlocked('a' + (i & 15), w.file); });
}

template <typename Writer, std::size_t size>
void sputn(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, size, [](Writer& w, int) { w.buffer().sputn(payload, size); });
}

template <typename Writer>
void put(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, 1,
      [](Writer& w, int i) { w.stream().put(static_cast<char>('a' + (i & 15))); });
}

template <typename Writer, std::size_t size>
void write(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, size, [](Writer& w, int) { w.stream().write(payload, size); });
}

template <typename Writer>
void literal(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, 6, [](Writer& w, int) { w.stream() << "token "; });
}

template <typename Writer>
void integer(benchmark::State& state) {
  Writer writer(file_for(state));
  // Values of one to five digits, as line numbers and table entries are.
  run(state, writer, 5, [](Writer& w, int i) { w.stream() << (i * 37 & 0xffff); });
}

// The cursor lives for one batch: made, `batch` calls, handed back, as a loop in a program would.
void put_cursor(benchmark::State& state) {
  mapout_static writer(file_for(state));
  std::uint64_t written = 0;
  for (auto _ : state) {
    {
      mapout::cursor put(writer.out);
      for (int i = 0; i < batch; ++i) put.put(static_cast<char>('a' + (i & 15)));
    }
    written += batch;
    if (written >= rewind_every) {
      writer.rewind();
      written = 0;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

// The hand-written loop the cursor is measured against: a 64 KiB buffer for write(2), its cursor a
// local variable.
void put_buffer_loop(benchmark::State& state) {
  const int fd = ::open(file_for(state).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) std::abort();
  constexpr std::size_t capacity = std::size_t{64} << 10;
  const std::unique_ptr<char[]> buffer(new char[capacity]);
  char* put = buffer.get();
  char* const end = buffer.get() + capacity;
  std::uint64_t written = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      if (put == end) {
        if (::write(fd, buffer.get(), capacity) != static_cast<ssize_t>(capacity)) std::abort();
        put = buffer.get();
        written += capacity;
        if (written >= rewind_every) {
          ::lseek(fd, 0, SEEK_SET);
          written = 0;
        }
      }
      *put++ = static_cast<char>('a' + (i & 15));
    }
  }
  ::close(fd);
  state.SetItemsProcessed(state.iterations() * batch);
}

// One generated line, "    { "field_<i>", <i>, <value> },\n", about 40 bytes, each way.
constexpr std::uint64_t line_bytes = 40;
std::uint32_t line_value(int i) {
  return static_cast<std::uint32_t>(static_cast<std::uint32_t>(i) * 2654435761u % 1000000u);
}

template <typename Writer>
void line_insert(benchmark::State& state) {
  Writer writer(file_for(state));
  run(state, writer, line_bytes, [](Writer& w, int i) {
    w.stream() << "    { \"field_" << i << "\", " << i << ", " << line_value(i) << " },\n";
  });
}

void line_print(benchmark::State& state) {
  mapout_static writer(file_for(state));
  run(state, writer, line_bytes, [](mapout_static& w, int i) {
    mapout::print(w.out, FMT_STRING("    {{ \"field_{}\", {}, {} }},\n"), i, i, line_value(i));
  });
}

void line_print_compiled(benchmark::State& state) {
  mapout_static writer(file_for(state));
  run(state, writer, line_bytes, [](mapout_static& w, int i) {
    mapout::print(w.out, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, line_value(i));
  });
}

void line_cursor_print_compiled(benchmark::State& state) {
  mapout_static writer(file_for(state));
  std::uint64_t written = 0;
  for (auto _ : state) {
    {
      mapout::cursor put(writer.out);
      for (int i = 0; i < batch; ++i) {
        mapout::print(put, FMT_COMPILE("    {{ \"field_{}\", {}, {} }},\n"), i, i, line_value(i));
      }
    }
    written += line_bytes * batch;
    if (written >= rewind_every) {
      writer.rewind();
      written = 0;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void line_fmt_output_file(benchmark::State& state) {
  std::optional<fmt::ostream> out;
  out.emplace(fmt::output_file(file_for(state).string()));
  std::uint64_t written = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      out->print("    {{ \"field_{}\", {}, {} }},\n", i, i, line_value(i));
    }
    written += line_bytes * batch;
    if (written >= rewind_every) {
      // fmt::ostream cannot seek: a new file, as the others rewind theirs.
      out->close();
      out.emplace(fmt::output_file(file_for(state).string()));
      written = 0;
    }
  }
  state.SetItemsProcessed(state.iterations() * batch);
}

void line_to_chars_buffer(benchmark::State& state) {
  const int fd = ::open(file_for(state).c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) std::abort();
  constexpr std::size_t capacity = std::size_t{64} << 10;
  const std::unique_ptr<char[]> buffer(new char[capacity]);
  char* put = buffer.get();
  std::uint64_t written = 0;
  for (auto _ : state) {
    for (int i = 0; i < batch; ++i) {
      if (buffer.get() + capacity - put < 64) {
        const auto size = static_cast<std::size_t>(put - buffer.get());
        if (::write(fd, buffer.get(), size) != static_cast<ssize_t>(size)) std::abort();
        put = buffer.get();
        written += size;
        if (written >= rewind_every) {
          ::lseek(fd, 0, SEEK_SET);
          written = 0;
        }
      }
      constexpr std::string_view head = "    { \"field_", middle = "\", ", comma = ", ",
                                 tail = " },\n";
      const auto value = static_cast<std::uint32_t>(i);
      put = std::copy(head.begin(), head.end(), put);
      put = std::to_chars(put, put + 10, value).ptr;
      put = std::copy(middle.begin(), middle.end(), put);
      put = std::to_chars(put, put + 10, value).ptr;
      put = std::copy(comma.begin(), comma.end(), put);
      put = std::to_chars(put, put + 10, line_value(i)).ptr;
      put = std::copy(tail.begin(), tail.end(), put);
    }
  }
  ::close(fd);
  state.SetItemsProcessed(state.iterations() * batch);
}

// A four-page reservation: the window runs out every 16 KiB and each call to overflow moves the
// mapping, so this measures the slow path against std::filebuf's own buffer flush.
mapout::options four_pages() {
  mapout::options opts;
  opts.strategy = mapout::strategy::mapped;
  opts.mapping_size = 4 * 4096;
  return opts;
}

void overflow_mapout(benchmark::State& state) {
  mapout_buffer writer(file_for(state), four_pages());
  run(state, writer, 1,
      [](mapout_buffer& w, int i) { w.buffer().sputc(static_cast<char>('a' + (i & 15))); });
}

void overflow_mapout_write(benchmark::State& state) {
  mapout_static writer(file_for(state), four_pages());
  run(state, writer, 64, [](mapout_static& w, int) { w.stream().write(payload, 64); });
}

void overflow_filebuf_write(benchmark::State& state) {
  ofstream_writer writer(file_for(state));
  run(state, writer, 64, [](ofstream_writer& w, int) { w.stream().write(payload, 64); });
}

void register_all() {
  const char* fixed = std::getenv("MAPOUT_MICRO_ITERATIONS");
  auto add = [fixed](const char* name, void (*function)(benchmark::State&)) {
    auto* b = benchmark::RegisterBenchmark(name, function);
    if (fixed != nullptr) b->Iterations(std::atoll(fixed));
  };
  add("sputc/mapout_streambuf", sputc<mapout_buffer>);
  add("sputc/std_filebuf", sputc<filebuf_writer>);
  add("sputc/stdio_putc_unlocked", putc_stdio);
  add("sputc/buffer_loop_local_cursor", put_buffer_loop);
  add("sputc/mapout_cursor_put", put_cursor);
  add("put/mapout_static", put<mapout_static>);
  add("put/mapout_std_ostream_ref", put<mapout_generic>);
  add("put/std_ofstream", put<ofstream_writer>);
  add("write1/mapout_static", write<mapout_static, 1>);
  add("write1/mapout_std_ostream_ref", write<mapout_generic, 1>);
  add("write1/std_ofstream", write<ofstream_writer, 1>);
  add("write1/mapout_streambuf_sputn", sputn<mapout_buffer, 1>);
  add("write1/std_filebuf_sputn", sputn<filebuf_writer, 1>);
  add("write8/mapout_static", write<mapout_static, 8>);
  add("write8/mapout_std_ostream_ref", write<mapout_generic, 8>);
  add("write8/std_ofstream", write<ofstream_writer, 8>);
  add("write8/mapout_streambuf_sputn", sputn<mapout_buffer, 8>);
  add("write8/std_filebuf_sputn", sputn<filebuf_writer, 8>);
  add("write64/mapout_static", write<mapout_static, 64>);
  add("write64/mapout_std_ostream_ref", write<mapout_generic, 64>);
  add("write64/std_ofstream", write<ofstream_writer, 64>);
  add("write64/mapout_streambuf_sputn", sputn<mapout_buffer, 64>);
  add("write64/std_filebuf_sputn", sputn<filebuf_writer, 64>);
  add("literal/mapout_static", literal<mapout_static>);
  add("literal/mapout_std_ostream_ref", literal<mapout_generic>);
  add("literal/std_ofstream", literal<ofstream_writer>);
  add("int/mapout_static", integer<mapout_static>);
  add("int/mapout_std_ostream_ref", integer<mapout_generic>);
  add("int/std_ofstream", integer<ofstream_writer>);
  add("line/to_chars_buffer", line_to_chars_buffer);
  add("line/mapout_static_insert", line_insert<mapout_static>);
  add("line/mapout_print", line_print);
  add("line/mapout_print_compiled", line_print_compiled);
  add("line/mapout_cursor_print_compiled", line_cursor_print_compiled);
  add("line/fmt_output_file", line_fmt_output_file);
  add("line/std_ofstream_insert", line_insert<ofstream_writer>);
  add("overflow_sputc/mapout_streambuf_4_pages", overflow_mapout);
  add("overflow_write64/mapout_static_4_pages", overflow_mapout_write);
  add("overflow_write64/std_ofstream", overflow_filebuf_write);
}

}  // namespace

int main(int argc, char** argv) {
  register_all();
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  std::error_code ignored;
  std::filesystem::remove_all(directory(), ignored);
  return 0;
}
