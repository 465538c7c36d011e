// Per-call cost of each way to hand bytes to a file: mapout::ostream through its static type (the
// inline path) and through std::ostream& (the standard path), the raw streambuf, and std::ofstream,
// for sputc (beside stdio's putc_unlocked), put, short writes, << of a literal and of an int, and
// overflow.
//
// Each benchmark iteration makes `batch` calls; the files live in a fresh directory under /dev/shm
// (or $MAPOUT_MICRO_DIR) and are rewound every 16 MiB, so that the calls, not page faults, are
// measured. MAPOUT_MICRO_ITERATIONS=n fixes the iteration count, for instruction counts under
// callgrind: the difference between two counts divided by the calls between them is per call.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <ostream>
#include <streambuf>
#include <string>

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
