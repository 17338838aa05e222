#include "io/format_handler.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <climits>
#include <cstring>
#include <filesystem>

#if defined(__linux__)
#include <sys/mman.h>
#endif

#include "common/error.h"
#include "io/proto_sniff.h"

namespace flowlens {
namespace {

namespace fs = std::filesystem;

// What text sniffing reads: looks_like_text looks at the first 64 KiB, and
// the text checks at the first word.
constexpr std::size_t kTextSniffBytes = 64 * 1024;
// Every format read whole is protobuf-based (or DOT, read as one string),
// and protobuf messages stop at 2 GiB: a bigger file is refused before any of
// it is held.
constexpr std::uintmax_t kMaxWholeFileBytes = INT32_MAX;

ParseError too_big_for_protobuf(const std::string& path) {
  return ParseError(path, 0, 0, "file is larger than 2 GiB, the most a protobuf message can hold");
}

// Asks the kernel to back the whole 2 MiB pages inside [data, data + size)
// with huge pages, before anything touches them. Where first touches are
// expensive (a virtual machine: ~10 us a 4 KiB page) reading a 70 MB file
// took 300 ms with 4 KiB pages and 25 ms with 2 MiB ones. Only a hint: with
// transparent huge pages off it changes nothing.
void ask_for_huge_pages(char* data, std::size_t size) {
#if defined(__linux__) && defined(MADV_HUGEPAGE)
  constexpr std::uintptr_t kHuge = std::uintptr_t{1} << 21;
  if (size < 2 * kHuge) return;
  const auto begin = (reinterpret_cast<std::uintptr_t>(data) + kHuge - 1) & ~(kHuge - 1);
  const auto end = (reinterpret_cast<std::uintptr_t>(data) + size) & ~(kHuge - 1);
  if (end > begin) madvise(reinterpret_cast<void*>(begin), end - begin, MADV_HUGEPAGE);
#else
  (void)data;
  (void)size;
#endif
}

bool glob_matches_name(std::string_view pattern, std::string_view name) {
  // '*' only, as the handlers' patterns use.
  if (pattern.empty()) return name.empty();
  if (pattern.front() == '*') {
    for (std::size_t k = 0; k <= name.size(); ++k)
      if (glob_matches_name(pattern.substr(1), name.substr(k))) return true;
    return false;
  }
  return !name.empty() &&
         std::tolower(static_cast<unsigned char>(pattern.front())) ==
             std::tolower(static_cast<unsigned char>(name.front())) &&
         glob_matches_name(pattern.substr(1), name.substr(1));
}

}  // namespace

std::string lower_extension(const std::string& path) {
  std::string ext = fs::path(path).extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(), [](unsigned char c) { return std::tolower(c); });
  return ext;
}

Probe::Probe(std::string path) : path_(std::move(path)), extension_(lower_extension(path_)) {
  std::error_code ec;
  const fs::file_status status = fs::status(path_, ec);
  directory_ = fs::is_directory(status);
  exists_ = fs::exists(status);
}

Probe::Probe(std::string name, std::string bytes)
    : path_(std::move(name)),
      extension_(lower_extension(path_)),
      exists_(true),
      in_memory_(true),
      complete_(true),
      size_(bytes.size()),
      bytes_(std::move(bytes)) {}

Probe::~Probe() = default;

std::string Probe::file_name() const { return fs::path(path_).filename().string(); }

bool Probe::name_matches(std::string_view pattern) const { return glob_matches_name(pattern, file_name()); }

void Probe::open_for_reading() {
  if (directory_) throw Error("cannot read '" + path_ + "': it is a directory, not a file");
  std::error_code ec;
  // A pipe would block the open until a writer came, and a device such as
  // /dev/zero never ends: only regular files are read (a /proc file is one).
  if (exists_ && !fs::is_regular_file(path_, ec))
    throw Error("cannot read '" + path_ + "': not a regular file (a pipe, socket or device); expected a graph, model, "
                "checkpoint or log file");
  size_ = fs::file_size(path_, ec);
  if (ec) size_ = 0;  // pipes and /proc files report no size: read in chunks
  if (size_ > kMaxWholeFileBytes) throw too_big_for_protobuf(path_);
  auto stream = std::make_unique<std::ifstream>(path_, std::ios::binary);
  ++opens_;
  if (!*stream) throw Error("cannot open '" + path_ + "': " + std::strerror(errno));
  in_ = std::move(stream);
  // Sized from the file, not grown: appending the rest after the sniffed head
  // never moves what was read, and a big file is never briefly held twice.
  bytes_.reserve(static_cast<std::size_t>(size_));
  ask_for_huge_pages(bytes_.data(), static_cast<std::size_t>(size_));
}

void Probe::read_more(std::size_t n) {
  const std::size_t had = bytes_.size();
  bytes_.resize(had + n);
  in_->read(bytes_.data() + had, static_cast<std::streamsize>(n));
  bytes_.resize(had + static_cast<std::size_t>(in_->gcount()));
  if (in_->bad()) throw Error("cannot read '" + path_ + "': " + std::strerror(errno));
}

void Probe::read_to_end() {
  if (complete_) return;
  if (!in_) open_for_reading();
  if (bytes_.size() < size_) {
    read_more(static_cast<std::size_t>(size_) - bytes_.size());
    if (bytes_.size() < size_) {  // shrank while read: what there was
      complete_ = true;
      in_.reset();
      return;
    }
  }
  // What the file holds beyond its size: it grew, or reported none.
  constexpr std::size_t kChunk = 64 * 1024;
  while (in_->peek() != std::ifstream::traits_type::eof()) {
    read_more(kChunk);
    if (bytes_.size() > kMaxWholeFileBytes) throw too_big_for_protobuf(path_);
  }
  complete_ = true;
  in_.reset();
}

std::string_view Probe::sniff_bytes() {
  if (complete_) return bytes_;
  if (!in_) {
    open_for_reading();
    read_more(static_cast<std::size_t>(std::min<std::uintmax_t>(size_, kTextSniffBytes + 1)));
  }
  // The first word must end inside the head, or the rest may lengthen it.
  if (bytes_.size() < size_ && io_detail::looks_like_text(bytes_)) {
    const io_detail::TextWordSpan word = io_detail::find_first_text_word(bytes_);
    if (word.end > word.begin && word.end < bytes_.size()) return bytes_;
  }
  read_to_end();
  return bytes_;
}

bool Probe::is_text() { return io_detail::looks_like_text(sniff_bytes()); }

const std::string& Probe::content() {
  read_to_end();
  return bytes_;
}

Graph OpenedFile::take_graph() {
  Graph shown;
  if (graph) {
    shown = std::move(*graph);
    graph.reset();
  } else if (saved_model) {
    std::vector<MetaGraph>& all = saved_model->meta_graphs;
    const auto index = static_cast<std::size_t>(&saved_model->default_meta_graph() - all.data());
    shown = std::move(all[index].graph);
  } else if (meta_graph) {
    shown = std::move(meta_graph->graph);
  } else if (format && probe_) {
    shown = format->load(*probe_);
  } else {
    throw Error("'" + path + "' holds no graph");
  }
  shown.source_path = path;
  return shown;
}

bool FormatHandler::known_name(const Probe& probe) const {
  for (const std::string& pattern : patterns())
    if (probe.name_matches(pattern)) return true;
  return false;
}

Graph FormatHandler::load(Probe& probe) const {
  Graph graph = read_graph(probe);
  graph.source_path = probe.path();
  return graph;
}

OpenedFile FormatHandler::open(const std::shared_ptr<Probe>& probe) const {
  OpenedFile file;
  file.format = this;
  file.path = probe->path();
  file.graph = load(*probe);
  return file;
}

OpenedFile FormatHandler::opened_without_graph(const std::shared_ptr<Probe>& probe) const {
  OpenedFile file;
  file.format = this;
  file.path = probe->path();
  file.probe_ = probe;
  return file;
}

void FormatHandler::save(const Graph&, const std::string& path) const {
  throw Error("cannot save '" + path + "': writing " + name() + " is not supported");
}

}  // namespace flowlens
