#include "train/Checkpoint.h"

#include "common/Check.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <unistd.h>
#include <zlib.h>

namespace fs = std::filesystem;

namespace dxrt {

using Json = nlohmann::json;

static constexpr char kMagic[8] = {'D', 'X', 'C', 'K', 'P', 'T', '0', '1'};

// Erases text[at, end), one member of a JSON object, and one comma beside
// it: the one before, or else the one after.
static void erase_member(std::string &text, size_t at, size_t end) {
  if (at > 0 && text[at - 1] == ',') --at;
  else if (end < text.size() && text[end] == ',') ++end;
  text.erase(at, end - at);
}

uint64_t metadata_hash(const std::string &json) {
  // The compiled target does not change the arenas' layout: a model's
  // checkpoints resume on either (trained on a GPU, continued or exported
  // on the CPU). The CPU's text is hashed, so CPU hashes stay what they were.
  // Nor does the precision (weights, gradients and optimizer state are fp32
  // in both): an fp32 checkpoint loads into a bf16 build and back. fp32
  // metadata has no "precision" (the text before it existed). Nor the
  // memory plan ("workspace", which differs between the targets and did not
  // exist before): the text without it is hashed, so hashes stay what they
  // were. Nor the layout of convolution activations ("conv_layout": the
  // weights are OIHW in every layout), likewise.
  static const std::string kCuda = "\"target\":\"cuda\"", kCpu = "\"target\":\"cpu\"";
  static const std::string kBf16 = ",\"precision\":\"bf16\"", kWorkspace = "\"workspace\":{";
  static const std::string kConvLayout = "\"conv_layout\":\"";
  std::string text = json;
  if (size_t at = text.find(kCuda); at != std::string::npos) text.replace(at, kCuda.size(), kCpu);
  if (size_t at = text.find(kBf16); at != std::string::npos) text.erase(at, kBf16.size());
  if (size_t at = text.find(kConvLayout); at != std::string::npos) {
    // A string without quotes inside (nchw16c, nchw8c, nchw): to its closing quote.
    const size_t close = text.find('"', at + kConvLayout.size());
    erase_member(text, at, close == std::string::npos ? text.size() : close + 1);
  }
  if (size_t at = text.find(kWorkspace); at != std::string::npos) {
    // Its object holds objects of numbers: to the brace that closes it.
    size_t end = at + kWorkspace.size();
    for (int depth = 1; end < text.size() && depth > 0; ++end) depth += text[end] == '{' ? 1 : text[end] == '}' ? -1 : 0;
    erase_member(text, at, end);
  }
  uint64_t h = 1469598103934665603ull;
  for (unsigned char c : text) h = (h ^ c) * 1099511628211ull;
  return h;
}

static std::string hex(uint64_t v) {
  char buf[17];
  std::snprintf(buf, sizeof buf, "%016llx", (unsigned long long)v);
  return buf;
}

static std::string rank_file(int rank) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "rank-%04d.ckpt", rank);
  return buf;
}

static std::string step_dir(int64_t step) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "step-%09lld", (long long)step);
  return buf;
}

// Writes bytes to path through path.tmp, fsync and rename; then fsyncs the
// directory so the rename itself is durable.
static void write_atomically(const fs::path &path, const std::string &bytes) {
  const fs::path tmp = path.string() + ".tmp";
  int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
  DXRT_CHECK(fd >= 0, str("cannot create the checkpoint file '", tmp.string(), "': ", std::strerror(errno)),
             "give --checkpoint-dir a writable directory");
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t w = ::write(fd, bytes.data() + done, bytes.size() - done);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      int e = errno;
      ::close(fd);
      ::unlink(tmp.c_str());
      DXRT_FAIL(str("writing the checkpoint file '", tmp.string(), "' failed: ", std::strerror(e)),
                "is the disk full? The previous checkpoint is intact");
    }
    done += size_t(w);
  }
  const bool synced = ::fsync(fd) == 0;
  const int sync_errno = errno;
  ::close(fd);
  if (!synced) {
    ::unlink(tmp.c_str());
    DXRT_FAIL(str("fsync of the checkpoint file '", tmp.string(), "' failed: ", std::strerror(sync_errno)),
              "the previous checkpoint is intact");
  }
  DXRT_CHECK(::rename(tmp.c_str(), path.c_str()) == 0,
             str("cannot rename '", tmp.string(), "' to '", path.string(), "': ", std::strerror(errno)), "");
  int dfd = ::open(path.parent_path().c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (dfd >= 0) {
    ::fsync(dfd);
    ::close(dfd);
  }
}

// The whole file, or false when it cannot be opened.
static bool read_whole(const std::string &path, std::string *out) {
  std::FILE *f = std::fopen(path.c_str(), "rb");
  if (!f) return false;
  char buf[65536];
  for (size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out->append(buf, n);
  std::fclose(f);
  return true;
}

static Json progress_json(const Progress &p) {
  return Json{{"epoch", p.epoch},
              {"step_in_epoch", p.step_in_epoch},
              {"step", p.step},
              {"train_time_s", p.train_time_s},
              {"elapsed_s", p.elapsed_s},
              {"epoch_time_s", p.epoch_time_s},
              {"loss_sum", p.loss_sum},
              {"samples", p.samples},
              {"comm_time_s", p.comm_time_s},
              {"comm_wait_s", p.comm_wait_s},
              {"overlap_window_s", p.overlap_window_s},
              {"lr", p.lr},
              {"last_finite_loss", std::isfinite(p.last_finite_loss) ? Json(p.last_finite_loss) : Json(nullptr)},
              {"last_finite_step", p.last_finite_step},
              {"target_met", p.target_met},
              {"target_epoch", p.target_epoch},
              {"target_time_s", p.target_time_s}};
}

// The fields of a rank file's header, typed. The CRC matched, so a field of
// the wrong JSON type was written by something else: the file is corrupt.
// (nlohmann's value() and get() would throw json::type_error, which is no
// dxrt::Error, and get<int64_t>() of a float such as 1e300 is undefined.)
class Fields {
public:
  Fields(const Json &j, std::string corrupt, std::string prefix = "")
      : j_(j), corrupt_(std::move(corrupt)), prefix_(std::move(prefix)) {}
  // Absent: the fallback.
  int64_t integer_or(const char *key, int64_t fallback) const { return has(key) ? integer(key) : fallback; }
  double number_or(const char *key, double fallback) const { return has(key) ? number(key) : fallback; }
  std::string string_or(const char *key, const std::string &fallback) const {
    return has(key) ? typed(key, &Json::is_string, "a string").get<std::string>() : fallback;
  }
  // Required.
  int64_t integer(const char *key) const { return typed(key, &Json::is_number_integer, "an integer").get<int64_t>(); }
  double number(const char *key) const { return typed(key, &Json::is_number, "a number").get<double>(); }
  bool boolean(const char *key) const { return typed(key, &Json::is_boolean, "true or false").get<bool>(); }
  bool is_null(const char *key) const { return has(key) && j_[key].is_null(); }
  Fields object(const char *key) const {
    return Fields(typed(key, &Json::is_object, "an object"), corrupt_, str(prefix_, key, "."));
  }

private:
  using Is = bool (Json::*)() const noexcept;
  bool has(const char *key) const { return j_.contains(key); }
  const Json &typed(const char *key, Is is, const char *what) const {
    DXRT_CHECK(has(key), str(corrupt_, " ('", prefix_, key, "' is missing)"), "");
    DXRT_CHECK((j_[key].*is)(), str(corrupt_, " ('", prefix_, key, "' is not ", what, ")"), "");
    return j_[key];
  }
  const Json &j_;
  std::string corrupt_, prefix_; // prefix_: "progress." inside the progress object
};

static Progress progress_from(const Fields &j) {
  Progress p;
  p.epoch = j.integer("epoch");
  p.step_in_epoch = j.integer("step_in_epoch");
  p.step = j.integer("step");
  p.train_time_s = j.number("train_time_s");
  p.elapsed_s = j.number("elapsed_s");
  p.epoch_time_s = j.number("epoch_time_s");
  p.loss_sum = j.number("loss_sum");
  p.samples = j.number("samples");
  p.comm_time_s = j.number("comm_time_s");
  // Absent in checkpoints of versions before the overlap: all of it waited.
  p.comm_wait_s = j.number_or("comm_wait_s", p.comm_time_s);
  // Absent in checkpoints before the overlap window was measured: none.
  p.overlap_window_s = j.number_or("overlap_window_s", 0);
  p.lr = j.number("lr");
  p.last_finite_loss = j.is_null("last_finite_loss") ? NAN : j.number("last_finite_loss");
  p.last_finite_step = j.integer("last_finite_step");
  p.target_met = j.boolean("target_met");
  p.target_epoch = j.integer("target_epoch");
  p.target_time_s = j.number("target_time_s");
  return p;
}

Checkpointer::Checkpointer(const Metadata &meta, const RunConfig &cfg, World &world)
    : meta_(meta), cfg_(cfg), world_(world), dir_(cfg.checkpoint_dir), meta_hash_(metadata_hash(meta.json)) {}

template <typename T> static void append(std::string &out, const T &v) {
  out.append(reinterpret_cast<const char *>(&v), sizeof v);
}
static void append_floats(std::string &out, const Floats &v) {
  append(out, uint64_t(v.size()));
  out.append(reinterpret_cast<const char *>(v.data()), v.size() * sizeof(float));
}

std::string Checkpointer::write(const Progress &p, const Arenas &a) {
  const fs::path dir = fs::path(dir_) / step_dir(p.step);
  std::error_code ec;
  fs::create_directories(dir, ec);
  DXRT_CHECK(!ec, str("cannot create the checkpoint directory '", dir.string(), "': ", ec.message()),
             "give --checkpoint-dir a writable directory");
  Json head{{"model", meta_.model},
            {"metadata_hash", hex(meta_hash_)},
            {"ranks", world_.size()},
            {"rank", world_.rank()},
            {"per_rank_batch", cfg_.per_rank_batch},
            {"seed", cfg_.seed},
            {"epochs", cfg_.epochs},
            {"sync", cfg_.sync.str()},
            {"progress", progress_json(p)}};
  const std::string head_text = head.dump();
  std::string bytes(kMagic, sizeof kMagic);
  append(bytes, uint64_t(head_text.size()));
  bytes += head_text;
  // Only the gradients' side values are not state; the gradients are not either.
  append_floats(bytes, a.params);
  append_floats(bytes, a.buffers);
  append_floats(bytes, a.state);
  append(bytes, uint32_t(crc32(0L, reinterpret_cast<const Bytef *>(bytes.data()), uInt(bytes.size()))));
  write_atomically(dir / rank_file(world_.rank()), bytes);

  world_.barrier(); // every rank's file is durable
  if (world_.is_root()) {
    Json done{{"model", meta_.model}, {"ranks", world_.size()}, {"epoch", p.epoch},
              {"step_in_epoch", p.step_in_epoch}, {"step", p.step}};
    write_atomically(dir / "DONE", done.dump() + "\n");
    prune();
  }
  world_.barrier();
  return dir.string();
}

// Deletes all but the newest `keep` complete checkpoints, and incomplete
// ones older than the newest complete one (left by a crash).
void Checkpointer::prune() {
  std::vector<std::pair<std::string, bool>> found; // name, complete
  std::error_code ec;
  for (const fs::directory_entry &e : fs::directory_iterator(dir_, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("step-", 0) == 0) found.push_back({name, fs::exists(e.path() / "DONE")});
  }
  std::sort(found.begin(), found.end()); // zero-padded names sort by step
  int64_t kept = 0;
  bool newer_complete = false;
  for (auto it = found.rbegin(); it != found.rend(); ++it) {
    bool drop = it->second ? ++kept > cfg_.keep_checkpoints : newer_complete;
    if (it->second) newer_complete = true;
    if (drop) fs::remove_all(fs::path(dir_) / it->first, ec);
  }
}

std::string Checkpointer::newest() {
  char path[4096] = {0};
  if (world_.is_root()) {
    std::string best;
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(dir_, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && name.rfind("step-", 0) == 0 && fs::exists(e.path() / "DONE") && name > best) best = name;
    }
    if (!best.empty()) std::snprintf(path, sizeof path, "%s", (fs::path(dir_) / best).c_str());
  }
  world_.broadcast(path, sizeof path, 0);
  return path;
}

std::vector<std::string> Checkpointer::complete() {
  std::string joined; // newline-separated, newest first
  if (world_.is_root()) {
    std::vector<std::string> names;
    std::error_code ec;
    for (const fs::directory_entry &e : fs::directory_iterator(dir_, ec)) {
      const std::string name = e.path().filename().string();
      if (e.is_directory() && name.rfind("step-", 0) == 0 && fs::exists(e.path() / "DONE")) names.push_back(name);
    }
    std::sort(names.rbegin(), names.rend()); // zero-padded names sort by step
    for (const std::string &n : names) joined += (fs::path(dir_) / n).string() + "\n";
  }
  int64_t n = int64_t(joined.size());
  world_.broadcast(&n, sizeof n, 0);
  joined.resize(size_t(n));
  if (n > 0) world_.broadcast(joined.data(), n, 0);
  std::vector<std::string> out;
  for (size_t at = 0, nl; (nl = joined.find('\n', at)) != std::string::npos; at = nl + 1) out.push_back(joined.substr(at, nl - at));
  return out;
}

// An error every rank meets alike.
static Error collective(std::string what, std::string hint, int line) {
  Error e(std::move(what), std::move(hint), __FILE__, line);
  e.collective = true;
  return e;
}

static void read_floats(const std::string &bytes, size_t *pos, Floats &into, const char *what, const std::string &file) {
  uint64_t n = 0;
  DXRT_CHECK(*pos + sizeof n <= bytes.size(), str("checkpoint file '", file, "' is truncated"), "");
  std::memcpy(&n, bytes.data() + *pos, sizeof n);
  *pos += sizeof n;
  DXRT_CHECK(n == into.size(),
             str("checkpoint file '", file, "' holds ", n, " ", what, " values, the model has ", into.size()),
             "the checkpoint is of another build of the model");
  DXRT_CHECK(*pos + n * sizeof(float) <= bytes.size(), str("checkpoint file '", file, "' is truncated"), "");
  std::memcpy(into.data(), bytes.data() + *pos, n * sizeof(float));
  *pos += n * sizeof(float);
}

// A rank file whose magic, checksum and header have been checked; its
// arenas start at `arenas_at`. Throws dxrt::Error naming the file.
struct RankFile {
  std::string bytes;
  Json head;
  size_t arenas_at = 0;
};

static RankFile read_rank_file(const std::string &file) {
  RankFile f;
  DXRT_CHECK(read_whole(file, &f.bytes), str("cannot open the checkpoint file '", file, "': ", std::strerror(errno)), "");
  const std::string &bytes = f.bytes;
  const std::string corrupt = str("the checkpoint file '", file, "' is corrupt");
  DXRT_CHECK(bytes.size() >= sizeof kMagic + 8 + 4 && std::memcmp(bytes.data(), kMagic, sizeof kMagic) == 0,
             str(corrupt, " (not a DeepEx checkpoint)"), "");
  uint32_t stored = 0;
  std::memcpy(&stored, bytes.data() + bytes.size() - 4, 4);
  DXRT_CHECK(stored == uint32_t(crc32(0L, reinterpret_cast<const Bytef *>(bytes.data()), uInt(bytes.size() - 4))),
             str(corrupt, " (checksum mismatch)"), "delete this checkpoint's directory to resume from an older one");
  uint64_t head_len = 0;
  std::memcpy(&head_len, bytes.data() + sizeof kMagic, 8);
  const size_t pos = sizeof kMagic + 8;
  DXRT_CHECK(head_len <= bytes.size() - pos, str(corrupt, " (bad header length)"), "");
  f.head = Json::parse(bytes.substr(pos, head_len), nullptr, false);
  DXRT_CHECK(f.head.is_object(), str(corrupt, " (bad header)"), "");
  f.arenas_at = pos + head_len;
  return f;
}

// DONE of the checkpoint at `dir`: its model and rank count, checked.
// `who` ("--from: ") starts the messages.
static Json read_done(const fs::path &dir, const std::string &path, const std::string &model, const std::string &who = "") {
  std::string done_text;
  if (!read_whole((dir / "DONE").string(), &done_text))
    throw collective(str(who, "the checkpoint '", path, "' is incomplete (no DONE marker)"), "", __LINE__);
  Json done = Json::parse(done_text, nullptr, false);
  if (done.is_discarded() || !done.contains("ranks") || !done["ranks"].is_number_integer() ||
      done["ranks"].get<int64_t>() < 1 || !done.contains("model") || !done["model"].is_string())
    throw collective(str(who, "the checkpoint's marker '", (dir / "DONE").string(), "' is corrupt"), "", __LINE__);
  if (done["model"] != model)
    throw collective(str(who, "the checkpoint '", path, "' is of the model '", done["model"].get<std::string>(), "', not '",
                         model, "'"),
                     "give the checkpoints of this model", __LINE__);
  return done;
}

std::string Checkpointer::damage(const std::string &path) {
  const fs::path dir(path);
  std::string done_text;
  if (!read_whole((dir / "DONE").string(), &done_text))
    return str("its marker '", (dir / "DONE").string(), "' cannot be read: ", std::strerror(errno));
  const Json done = Json::parse(done_text, nullptr, false);
  if (done.is_discarded() || !done.contains("ranks") || !done["ranks"].is_number_integer() ||
      done["ranks"].get<int64_t>() < 1 || !done.contains("model") || !done["model"].is_string())
    return str("its marker '", (dir / "DONE").string(), "' is corrupt");
  // Another model or rank count: not damage, load() says what it is.
  if (done["model"] != meta_.model || done["ranks"].get<int64_t>() != world_.size()) return "";
  try {
    read_rank_file((dir / rank_file(world_.rank())).string());
  } catch (const Error &e) {
    return e.what();
  }
  return "";
}

Progress Checkpointer::load(const std::string &path, Arenas &a) {
  // DONE says how many ranks wrote the checkpoint: every rank reads it, so a
  // different rank count is refused by all of them alike.
  const fs::path dir(path);
  const Json done = read_done(dir, path, meta_.model);
  if (done["ranks"].get<int64_t>() != world_.size())
    throw collective(str("the checkpoint '", path, "' was written by ", done["ranks"].get<int64_t>(), " rank(s); this run has ",
                         world_.size()),
                     str("resume with mpirun -np ", done["ranks"].get<int64_t>(),
                         ": the data order and optimizer state belong to that rank count"),
                     __LINE__);

  const std::string file = (dir / rank_file(world_.rank())).string();
  const RankFile f = read_rank_file(file);
  const Json &head = f.head;
  const std::string corrupt = str("the checkpoint file '", file, "' is corrupt");
  const Fields fields(head, corrupt);
  if (fields.string_or("metadata_hash", "") != hex(meta_hash_))
    throw collective(str("the checkpoint '", path, "' is of a different build of the model '", meta_.model,
                         "' (its metadata differs: layers, optimizer or data)"),
                     "resume with the executable that wrote it, or start afresh in another --checkpoint-dir", __LINE__);
  if (const int64_t batch = fields.integer_or("per_rank_batch", 0); batch != cfg_.per_rank_batch)
    throw collective(str("the checkpoint '", path, "' was trained with batch ", batch,
                         " per rank; this run asks for ", cfg_.per_rank_batch),
                     "resume with the same --batch: the data order depends on it", __LINE__);
  if (const int64_t seed = fields.integer_or("seed", -1); seed != cfg_.seed)
    throw collective(str("the checkpoint '", path, "' was trained with seed ", seed,
                         "; this run asks for seed ", cfg_.seed),
                     "resume with the same --seed: the data order and dropout depend on it", __LINE__);
  const int64_t rank = fields.integer_or("rank", -1);
  DXRT_CHECK(rank == world_.rank(), str(corrupt, " (it is rank ", rank, "'s file)"), "");

  size_t pos = f.arenas_at;
  read_floats(f.bytes, &pos, a.params, "parameter", file);
  read_floats(f.bytes, &pos, a.buffers, "buffer", file);
  read_floats(f.bytes, &pos, a.state, "optimizer state", file);
  DXRT_CHECK(pos + 4 == f.bytes.size(), str(corrupt, " (trailing bytes)"), "");
  return progress_from(fields.object("progress"));
}

std::string checkpoint_step_dir(const std::string &path, const char *who) {
  std::error_code ec;
  DXRT_CHECK(fs::is_directory(path, ec), str(who, ": '", path, "' is not a directory"),
             "give a checkpoint (DIR/step-NNNNNNNNN) or the checkpoint directory of a run (--checkpoint-dir)");
  if (fs::exists(fs::path(path) / "DONE", ec)) return path;
  std::string best;
  for (const fs::directory_entry &e : fs::directory_iterator(path, ec)) {
    const std::string name = e.path().filename().string();
    if (e.is_directory() && name.rfind("step-", 0) == 0 && fs::exists(e.path() / "DONE") && name > best) best = name;
  }
  DXRT_CHECK(!best.empty(), str(who, ": '", path, "' is not a checkpoint (no DONE marker) and holds no complete one"),
             "checkpoints are DIR/step-NNNNNNNNN directories with a DONE marker, written with --checkpoint-every N, "
             "on SIGUSR1/SIGTERM or at --stop-after-epoch");
  return (fs::path(path) / best).string();
}

std::string load_checkpoint_weights(const Metadata &meta, Arenas &a, const std::string &path, const char *who) {
  const std::string at = checkpoint_step_dir(path, who);
  const fs::path dir(at);
  const int64_t ranks = read_done(dir, at, meta.model, str(who, ": "))["ranks"].get<int64_t>();
  const std::string hash = hex(metadata_hash(meta.json));
  // Under all-reduce every rank holds the same model: rank 0's is it. Under
  // local SGD the ranks' models differ between averages, and the evaluation
  // uses their average: so does this.
  std::vector<Floats> sums;
  int64_t read = 0;
  for (int64_t r = 0; r < ranks; ++r) {
    const std::string file = (dir / rank_file(int(r))).string();
    const RankFile f = read_rank_file(file);
    const Fields fields(f.head, str("the checkpoint file '", file, "' is corrupt"));
    if (fields.string_or("metadata_hash", "") != hash)
      throw collective(str(who, ": the checkpoint '", at, "' is of a different build of the model '", meta.model,
                           "' (its metadata differs: layers, optimizer or data)"),
                       "use the executable or library compiled from the .dx file that wrote it", __LINE__);
    const bool averaged = fields.string_or("sync", "allreduce").rfind("average", 0) == 0;
    Floats params(a.params.size()), buffers(a.buffers.size());
    size_t pos = f.arenas_at;
    read_floats(f.bytes, &pos, params, "parameter", file);
    read_floats(f.bytes, &pos, buffers, "buffer", file);
    if (r == 0) {
      sums = {std::move(params), std::move(buffers)};
    } else {
      for (size_t i = 0; i < params.size(); ++i) sums[0][i] += params[i];
      for (size_t i = 0; i < buffers.size(); ++i) sums[1][i] += buffers[i];
    }
    ++read;
    if (!averaged) break;
  }
  const float scale = 1.0f / float(read);
  for (size_t i = 0; i < a.params.size(); ++i) a.params[i] = read == 1 ? sums[0][i] : sums[0][i] * scale;
  for (size_t i = 0; i < a.buffers.size(); ++i) a.buffers[i] = read == 1 ? sums[1][i] : sums[1][i] * scale;
  return at;
}

} // namespace dxrt
