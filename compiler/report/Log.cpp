#include "report/Log.h"

#include "util/Format.h"
#include "util/JsonShown.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

namespace dx::report {

bool isMetric(const std::string &m) {
  for (const char *k : {"accuracy", "iou", "mae", "rmse", "r2", "loss", "val_loss"})
    if (m == k) return true;
  return false;
}


using Json = nlohmann::json;

std::string InputError::render() const {
  std::string where = file.empty() ? "dxc" : file;
  if (line > 0) where += ":" + std::to_string(line);
  if (line > 0 && column > 0) where += ":" + std::to_string(column);
  return where + ": error: " + what();
}

std::string Goal::str() const { return metric + " " + op + " " + shortest(value); }

namespace {

// The largest count (ranks, batches, steps, samples, parameters) a log may
// give: 2^53, the integers JSON carries exactly to any reader (RFC 8259 §6).
// The report multiplies and adds counts; readLog also bounds the products it
// forms (global batch, samples per epoch, steps in all), so that none of that
// int64_t arithmetic can overflow, whatever a log says.
constexpr int64_t kMaxCount = int64_t(1) << 53;

// A value for a message (util/JsonShown.h).
std::string shown(const Json &v) { return dx::json_shown(v, "an array"); }

// The fields of one event, with typed getters that throw InputError naming
// the file, the line, the event and the field.
class Event {
public:
  Event(const Json &j, std::string file, int line, std::string name)
      : j_(j), file_(std::move(file)), line_(line), name_(std::move(name)) {}

  [[noreturn]] void fail(const std::string &message) const { throw InputError(file_, line_, 0, message); }

  bool has(const char *key) const { return j_.contains(key) && !j_[key].is_null(); }

  double number(const char *key) const {
    const Json &v = need(key);
    if (!v.is_number()) wrongType(key, "a number", v);
    double d = v.get<double>();
    if (!std::isfinite(d)) fail(field(key) + " is not a finite number");
    return d;
  }
  double nonNegative(const char *key) const {
    double d = number(key);
    if (d < 0) fail(field(key) + " is negative (" + shortest(d) + ")");
    return d;
  }
  std::optional<double> optNumber(const char *key) const {
    if (!has(key)) return std::nullopt;
    return number(key);
  }
  int64_t integer(const char *key) const {
    const Json &v = need(key);
    if (v.is_number_integer()) return v.get<int64_t>();
    if (v.is_number_float()) {
      double d = v.get<double>();
      if (std::isfinite(d) && d == std::floor(d) && std::fabs(d) < 9e15) return int64_t(d);
    }
    wrongType(key, "an integer", v);
  }
  // Counts: at least 1, or at least 0; at most kMaxCount.
  int64_t positive(const char *key) const {
    int64_t n = integer(key);
    if (n < 1) fail(field(key) + " must be at least 1, not " + std::to_string(n));
    return belowMaxCount(key, n);
  }
  int64_t nonNegativeInt(const char *key) const {
    int64_t n = integer(key);
    if (n < 0) fail(field(key) + " is negative (" + std::to_string(n) + ")");
    return belowMaxCount(key, n);
  }
  std::optional<int64_t> optInteger(const char *key) const {
    if (!has(key)) return std::nullopt;
    return integer(key);
  }
  std::string string(const char *key) const {
    const Json &v = need(key);
    if (!v.is_string()) wrongType(key, "a string", v);
    return v.get<std::string>();
  }
  std::string optString(const char *key) const { return has(key) ? string(key) : std::string(); }
  bool optBool(const char *key) const {
    if (!has(key)) return false;
    const Json &v = j_[key];
    if (!v.is_boolean()) wrongType(key, "true or false", v);
    return v.get<bool>();
  }
  const Json &json() const { return j_; }
  int line() const { return line_; }
  std::string field(const char *key) const { return "'" + std::string(key) + "' of the " + name_ + " event"; }

private:
  const Json &need(const char *key) const {
    if (!has(key)) fail("the " + name_ + " event has no '" + key + "'");
    return j_[key];
  }
  [[noreturn]] void wrongType(const char *key, const char *expected, const Json &v) const {
    fail(field(key) + " must be " + expected + ", not " + shown(v));
  }
  int64_t belowMaxCount(const char *key, int64_t n) const {
    if (n > kMaxCount) fail(field(key) + " is " + std::to_string(n) + ", more than any run counts (2^53)");
    return n;
  }
  const Json &j_;
  std::string file_;
  int line_;
  std::string name_;
};

// The batch: per_rank_batch, global_batch or both (the schema's anyOf).
void readBatch(const Event &e, RunLog &r) {
  if (!e.has("per_rank_batch") && !e.has("global_batch"))
    e.fail("the 'start' event has neither 'per_rank_batch' nor 'global_batch' (one of them is required)");
  if (e.has("per_rank_batch")) r.perRankBatch = e.positive("per_rank_batch");
  if (e.has("global_batch")) r.globalBatch = e.positive("global_batch");
  if (!r.globalBatch) {
    if (r.perRankBatch > kMaxCount / r.ranks)
      e.fail("'per_rank_batch' x 'ranks' of the 'start' event (the global batch) is more than any run counts (2^53)");
    r.globalBatch = r.perRankBatch * r.ranks;
  }
  if (!r.perRankBatch && r.globalBatch % r.ranks == 0) r.perRankBatch = r.globalBatch / r.ranks;
}

void readStart(const Event &e, RunLog &r) {
  r.model = e.string("model");
  r.ranks = e.positive("ranks");
  readBatch(e, r);
  if (e.has("params")) r.params = e.nonNegativeInt("params");
  if (e.has("steps_per_epoch")) r.stepsPerEpoch = e.positive("steps_per_epoch");
  r.device = e.optString("target");
  r.dataset = e.optString("dataset");
  r.source = e.optString("source");
  r.optimizer = e.optString("optimizer");
  r.schedule = e.optString("schedule");
  r.time = e.optString("time");
  if (e.has("train_samples")) r.trainSamples = e.nonNegativeInt("train_samples");
  r.testSamples = e.has("test_samples") ? e.nonNegativeInt("test_samples") : 0;
  r.seed = e.optInteger("seed").value_or(0);
  r.epochsPlanned = e.has("epochs") ? e.nonNegativeInt("epochs") : 0;
  r.maxSteps = e.has("max_steps") ? e.nonNegativeInt("max_steps") : 0;
  r.lr = e.optNumber("lr").value_or(0);
  r.synthetic = e.optBool("synthetic");
  if (e.has("goal")) {
    const Json &g = e.json()["goal"];
    const char *shape = " must be an object like {\"metric\":\"accuracy\",\"op\":\">=\",\"value\":0.9}";
    if (!g.is_object() || !g.contains("metric") || !g["metric"].is_string() || !g.contains("op") ||
        !g["op"].is_string() || !g.contains("value") || !g["value"].is_number())
      e.fail(e.field("goal") + shape + ", not " + shown(g));
    Goal goal{g["metric"].get<std::string>(), g["op"].get<std::string>(), g["value"].get<double>()};
    if (!isMetric(goal.metric))
      e.fail("the goal's metric must be accuracy, iou, mae, rmse, r2, loss or val_loss, not '" + goal.metric + "'");
    if (goal.op != ">=" && goal.op != "<=") e.fail("the goal's op must be >= or <=, not '" + goal.op + "'");
    r.goal = goal;
  }
  r.sync = e.optString("sync");
  if (!r.sync.empty() && r.sync != "allreduce" && r.sync != "average")
    e.fail(e.field("sync") + " must be allreduce or average, not '" + r.sync + "'");
  if (e.has("average_every")) r.averageEvery = e.positive("average_every");
  if (r.sync == "average" && r.averageEvery == 0) e.fail("the start event has sync average but no 'average_every'");
  if (e.has("grad_bytes")) r.gradBytes = e.nonNegativeInt("grad_bytes");
  if (e.has("grad_buckets")) r.gradBuckets = e.positive("grad_buckets");
  if (e.has("lr_scaling")) {
    const Json &v = e.json()["lr_scaling"];
    // A string ("none", "linear"); tolerate a boolean.
    r.lrScaling = v.is_boolean() ? (v.get<bool>() ? "linear" : "none") : e.string("lr_scaling");
  }
}

// Without train_time_s, trainTime is NaN: the sum of the epoch times is
// known only once a resume has dropped the epochs trained again, so
// readLog fills it in.
EpochRecord readEpoch(const Event &e) {
  EpochRecord ep;
  ep.line = e.line();
  ep.epoch = e.positive("epoch");
  ep.steps = e.nonNegativeInt("steps");
  ep.trainTime = e.has("train_time_s") ? e.nonNegative("train_time_s") : std::nan("");
  ep.elapsed = e.has("elapsed_s") ? e.nonNegative("elapsed_s") : 0;
  ep.epochTime = e.nonNegative("epoch_time_s");
  ep.samplesPerSec = e.has("samples_per_s") ? e.nonNegative("samples_per_s") : 0;
  ep.trainLoss = e.optNumber("train_loss");
  ep.valLoss = e.optNumber("val_loss");
  ep.valAccuracy = e.optNumber("val_accuracy");
  ep.valIou = e.optNumber("val_iou");
  ep.valMae = e.optNumber("val_mae");
  ep.valRmse = e.optNumber("val_rmse");
  ep.valR2 = e.optNumber("val_r2");
  ep.lr = e.optNumber("lr");
  if (e.has("comm_time_s")) {
    ep.commTime = e.nonNegative("comm_time_s");
    if (*ep.commTime > ep.epochTime + 1e-9)
      e.fail("'comm_time_s' (" + shortest(*ep.commTime) + ") is more than 'epoch_time_s' (" + shortest(ep.epochTime) + ")");
  }
  if (e.has("comm_wait_s")) {
    ep.commWait = e.nonNegative("comm_wait_s");
    const double limit = ep.commTime ? *ep.commTime : ep.epochTime;
    if (*ep.commWait > limit + 1e-9)
      e.fail("'comm_wait_s' (" + shortest(*ep.commWait) + ") is more than '" +
             (ep.commTime ? "comm_time_s" : "epoch_time_s") + "' (" + shortest(limit) + ")");
  }
  if (e.has("overlap_window_s")) {
    ep.overlapWindow = e.nonNegative("overlap_window_s");
    if (*ep.overlapWindow > ep.epochTime + 1e-9)
      e.fail("'overlap_window_s' (" + shortest(*ep.overlapWindow) + ") is more than 'epoch_time_s' (" +
             shortest(ep.epochTime) + ")");
  }
  return ep;
}

// "syntax error while parsing value - invalid literal; last read: 'x'" from
// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 5: ...",
// and "number overflow parsing '1e400'" from "[json.exception.out_of_range.406] ...".
std::string parseMessage(const Json::exception &e) {
  std::string m = e.what();
  if (size_t p = m.find("column "); p != std::string::npos) {
    if (size_t q = m.find(": ", p); q != std::string::npos) m = m.substr(q + 2);
  } else if (size_t q = m.find("] "); m.rfind("[json.exception.", 0) == 0 && q != std::string::npos) {
    m = m.substr(q + 2);
  }
  return m;
}

// What the log leaves out and the epochs tell (docs/cli.md, "Metrics log").
void fillFallbacks(RunLog &r) {
  if (!r.stepsPerEpoch) {
    for (const EpochRecord &e : r.epochs) r.stepsPerEpoch = std::max(r.stepsPerEpoch, e.steps);
    r.stepsPerEpochDerived = true;
  }
  if (r.target && std::isnan(r.target->trainTime)) {
    // The epoch after which the target was met; the last one if the log lacks it.
    r.target->trainTime = r.epochs.empty() ? 0 : r.epochs.back().trainTime;
    for (const EpochRecord &e : r.epochs)
      if (e.epoch == r.target->epoch) r.target->trainTime = e.trainTime;
  }
}

// The counts the report forms from the epochs, the steps of them all and the
// samples of one (steps_per_epoch x global batch), within kMaxCount as the
// log's own counts are.
void checkTotals(const RunLog &r, int startLine) {
  int64_t steps = 0;
  for (const EpochRecord &e : r.epochs)
    if ((steps += e.steps) > kMaxCount)
      throw InputError(r.path, e.line, 0,
                       "the epochs up to this one take " + std::to_string(steps) + " steps, more than any run counts (2^53)");
  if (r.stepsPerEpoch > kMaxCount / r.globalBatch)
    throw InputError(r.path, startLine, 0,
                     "steps per epoch x global batch (the samples of an epoch) is more than any run counts (2^53)");
}

} // namespace

RunLog readLog(const std::string &path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path, 0, 0, "is a directory, not a metrics log (give the .jsonl files, e.g. DIR/*.jsonl)");
  std::ifstream in(path, std::ios::binary);
  if (!in) throw InputError(path, 0, 0, std::string("cannot read the log: ") + std::strerror(errno));
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string text = ss.str();

  RunLog r;
  r.path = path;
  bool started = false;
  int endLine = 0;
  int64_t resumedAt = -1; // the epoch of a resume event not yet followed by an epoch event
  int resumeLine = 0;
  int lineNo = 0, startLine = 0;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    const bool lastWithoutNewline = nl == std::string::npos;
    std::string line = text.substr(pos, lastWithoutNewline ? std::string::npos : nl - pos);
    pos = lastWithoutNewline ? text.size() : nl + 1;
    ++lineNo;
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (line.find_first_not_of(" \t") == std::string::npos) continue;

    Json j;
    try {
      j = Json::parse(line);
    } catch (const Json::parse_error &e) {
      bool cutShort = e.byte >= line.size() && lastWithoutNewline;
      if (cutShort)
        throw InputError(path, lineNo, 0,
                         "the log is cut short: its last line is an incomplete event (was the run killed while "
                         "writing it?); remove the line to report the rest");
      throw InputError(path, lineNo, int(std::min<size_t>(e.byte, line.size())),
                       "not valid JSON: " + parseMessage(e));
    } catch (const Json::out_of_range &e) { // a number beyond double's range, such as 1e400
      throw InputError(path, lineNo, 0, "not valid JSON: " + parseMessage(e));
    }
    if (!j.is_object()) throw InputError(path, lineNo, 0, "expected a JSON object (one event per line), got " + shown(j));
    if (!j.contains("event")) throw InputError(path, lineNo, 0, "the object has no 'event' field");
    if (!j["event"].is_string()) throw InputError(path, lineNo, 0, "'event' must be a string, not " + shown(j["event"]));
    const std::string name = j["event"].get<std::string>();
    Event e(j, path, lineNo, "'" + name + "'");

    if (!started) {
      if (name != "start")
        e.fail("the first event is '" + name + "'; a metrics log begins with a 'start' event");
      readStart(e, r);
      started = true;
      startLine = lineNo;
      continue;
    }
    if (name == "start")
      e.fail("a second 'start' event (the first is on line 1); a log holds one run, and a resumed run continues "
             "with a 'resume' event");
    if (endLine && name != "resume" && (name == "epoch" || name == "target" || name == "end" || name == "error"))
      e.fail("'" + name + "' event after the run's 'end' event (line " + std::to_string(endLine) + ")");

    if (name == "epoch") {
      EpochRecord ep = readEpoch(e);
      const int64_t last = r.epochs.empty() ? 0 : r.epochs.back().epoch;
      if (resumedAt >= 0) {
        // The first epoch after a resume: the checkpoint was taken in (or at
        // the end of) the epoch before it, so epochs logged from this one on
        // were trained again and the new ones count.
        if (ep.epoch < resumedAt || ep.epoch > resumedAt + 1 || ep.epoch > last + 1)
          e.fail("epoch " + std::to_string(ep.epoch) + " follows the resume on line " + std::to_string(resumeLine) +
                 " (from epoch " + std::to_string(resumedAt) + ")");
        while (!r.epochs.empty() && r.epochs.back().epoch >= ep.epoch) r.epochs.pop_back();
        if (r.target && r.target->epoch >= ep.epoch) r.target.reset();
        resumedAt = -1;
      } else if (ep.epoch != last + 1) {
        if (r.epochs.empty())
          e.fail("the first epoch event is epoch " + std::to_string(ep.epoch) + "; expected epoch 1");
        e.fail("epoch " + std::to_string(ep.epoch) + " follows epoch " + std::to_string(last) + " (line " +
               std::to_string(r.epochs.back().line) + "); expected epoch " + std::to_string(last + 1));
      }
      if (std::isnan(ep.trainTime)) ep.trainTime = (r.epochs.empty() ? 0 : r.epochs.back().trainTime) + ep.epochTime;
      if (!r.epochs.empty() && ep.trainTime + 1e-6 < r.epochs.back().trainTime)
        e.fail("'train_time_s' goes backwards: " + shortest(ep.trainTime) + " after " +
               shortest(r.epochs.back().trainTime) + " on line " + std::to_string(r.epochs.back().line) +
               " (it is cumulative)");
      r.epochs.push_back(ep);
      r.stopReason.clear();
    } else if (name == "target") {
      TargetRecord t;
      t.line = lineNo;
      t.epoch = e.positive("epoch");
      // metric and value repeat the goal and the epoch's metric: not needed,
      // but checked for their type as the schema does.
      if (e.has("metric")) (void)e.string("metric");
      if (e.has("value")) (void)e.number("value");
      t.trainTime = e.has("train_time_s") ? e.nonNegative("train_time_s") : std::nan("");
      if (!r.target) r.target = t; // the first time the target was met counts
    } else if (name == "end") {
      r.ended = true;
      r.endTrainTime = e.has("train_time_s") ? e.nonNegative("train_time_s") : 0;
      endLine = lineNo;
    } else if (name == "error") {
      r.error = e.has("error") ? e.string("error") : "error";
      r.errorLine = lineNo;
    } else if (name == "stop") {
      r.stopReason = e.has("reason") ? e.string("reason") : "stopped";
    } else if (name == "resume") {
      // "epoch" is where the checkpoint was taken: the epoch in progress (or
      // the last one finished); the next epoch event says which.
      const int64_t epoch = e.nonNegativeInt("epoch");
      const int64_t last = r.epochs.empty() ? 0 : r.epochs.back().epoch;
      if (epoch > last + 1)
        e.fail("the run resumes at epoch " + std::to_string(epoch) + ", but the log's last epoch is " +
               std::to_string(last));
      resumedAt = epoch;
      resumeLine = lineNo;
      r.ended = false;
      endLine = 0;
      r.error.clear();
      r.errorLine = 0;
      r.stopReason.clear();
      ++r.resumes;
    }
    // Other events are ignored.
  }
  if (!started) throw InputError(path, 0, 0, "the log is empty: no 'start' event");
  fillFallbacks(r);
  checkTotals(r, startLine);
  return r;
}

} // namespace dx::report
