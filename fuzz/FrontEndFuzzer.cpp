// libFuzzer harness for the DeepEx front end: lexer, parser, AST builder,
// import loader, name resolution, shape elaboration, dataset/train checks,
// the diagnostic renderer, the AST dump and the --print-model table.
//
// Each input is the text of a main file at DX_FUZZ_IMPORT_DIR/input.dx, so
// `use lib`, `use cyc_a` and `use std.blocks` reach real files (see
// fuzz/imports/ and stdlib/). Like dxc (driver/LargeStack.cpp), the front end
// runs on a thread with a 1 GiB stack: deep but legal nesting is no crash,
// while a stack overflow even there still is. Unlike dxc, the thread is made
// once and reused: under ASan a new thread per input costs more than the
// front end itself (the shadow of its stack is cleared, its allocator cache
// refilled and drained), which cut the fuzzer to under 100 inputs/s.
//
// Besides sanitizer reports, these count as bugs (abort):
//   - an uncaught exception (dxc would print "internal error");
//   - the parser's "internal error" / "parser failed" fallbacks firing;
//   - a diagnostic whose range lies outside its file;
//   - loadModule (the --emit=ast path) failing where analyze loaded the file.
#include "driver/ModelTable.h"
#include "frontend/ASTDump.h"
#include "sema/Sema.h"

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <ostream>
#include <streambuf>
#include <string>
#include <string_view>

#include <pthread.h>

#ifndef DX_FUZZ_STDLIB_DIR
#error "DX_FUZZ_STDLIB_DIR must name the source stdlib directory"
#endif
#ifndef DX_FUZZ_IMPORT_DIR
#error "DX_FUZZ_IMPORT_DIR must name fuzz/imports"
#endif

namespace {

// Inputs larger than this are skipped; run.sh passes the same -max_len.
constexpr size_t kMaxInput = 64 * 1024;
// The AST dump indents each node by its depth, so its output grows with the
// square of the nesting (a chain of 30000 '-' is 900 MB): proportional to
// what it prints, but a timeout under ASan. Dump only inputs up to this size.
constexpr size_t kMaxDumpInput = 16 * 1024;

// Swallows everything but still runs every formatting path of operator<<.
class NullBuf : public std::streambuf {
protected:
  int overflow(int c) override { return traits_type::not_eof(c); }
  std::streamsize xsputn(const char *, std::streamsize n) override { return n; }
};

[[noreturn]] void bug(const std::string &what) {
  std::fprintf(stderr, "==dx-fuzz== BUG: %s\n", what.c_str());
  std::fflush(stderr);
  std::abort();
}

// `use "..."` may name any path; keep the fuzzer away from files whose reads
// block or never end (/proc/kmsg, /dev/..., /sys/...). Regular .dx imports and
// the stdlib are unaffected.
bool touchesSpecialFiles(std::string_view s) {
  for (const char *bad : {"proc/", "sys/", "dev/", "/proc", "/sys", "/dev"})
    if (s.find(bad) != std::string_view::npos) return true;
  return false;
}

void checkDiagnostics(const dx::DiagnosticEngine &diags, const dx::SourceManager &sm) {
  auto checkRange = [&](const dx::SourceRange &r, const std::string &msg) {
    if (!r.valid()) return;
    if (r.file >= sm.size()) bug("diagnostic in unknown file " + std::to_string(r.file) + ": " + msg);
    size_t size = sm.contents(r.file).size();
    if (r.begin > size || r.end > size)
      bug("diagnostic range [" + std::to_string(r.begin) + ", " + std::to_string(r.end) +
          ") outside its file of " + std::to_string(size) + " bytes: " + msg);
  };
  for (const dx::Diagnostic &d : diags.all()) {
    // At the start: messages may quote the input, which may say anything.
    if (d.message.rfind("internal error", 0) == 0 || d.message.rfind("parser failed", 0) == 0)
      bug("front end reported: " + d.message);
    checkRange(d.range, d.message);
    for (const dx::Note &n : d.notes) checkRange(n.range, n.message);
  }
}

void runOne(const std::string &text) {
  NullBuf buf;
  std::ostream null(&buf);
  const std::string path = std::string(DX_FUZZ_IMPORT_DIR) + "/input.dx";
  dx::SemaOptions opts;
  opts.stdlibDir = DX_FUZZ_STDLIB_DIR;
  opts.mainContents = text;

  // dxc check [--print-model]
  bool loaded = false;
  {
    dx::SourceManager sm;
    dx::DiagnosticEngine diags(sm);
    auto prog = dx::analyze(path, sm, diags, opts);
    if (!prog) bug("analyze returned null");
    checkDiagnostics(diags, sm);
    diags.render(null, /*color=*/false);
    diags.render(null, /*color=*/true);
    loaded = prog->module.main != nullptr;
    if (!diags.hasErrors())
      for (const dx::CheckedModel &m : prog->models) dx::printModelTable(null, m, sm);
  }

  // dxc check --emit=ast
  if (loaded && text.size() <= kMaxDumpInput) {
    dx::SourceManager sm;
    dx::DiagnosticEngine diags(sm);
    auto mod = dx::loadModule(path, sm, diags, opts);
    checkDiagnostics(diags, sm);
    diags.render(null, false);
    if (!mod) bug("loadModule failed on input that analyze loaded");
    for (const auto &f : mod->files) dx::dumpAST(null, *f, sm);
  }
}

// A thread with dxc's 1 GiB stack (reserved; only touched pages use memory)
// that runs one job at a time for the fuzzer's main thread.
class LargeStackWorker {
public:
  void run(const std::function<void()> &fn) {
    if (!started_ && !start()) return fn(); // fall back to this thread's stack
    pthread_mutex_lock(&mu_);
    job_ = &fn;
    pthread_cond_broadcast(&cv_);
    while (job_) pthread_cond_wait(&cv_, &mu_);
    pthread_mutex_unlock(&mu_);
  }

private:
  static constexpr size_t kStack = size_t(1) << 30; // as in driver/LargeStack.cpp

  bool start() {
    pthread_attr_t attr;
    pthread_attr_init(&attr);
    pthread_attr_setstacksize(&attr, kStack);
    started_ = pthread_create(&thread_, &attr, &LargeStackWorker::loop, this) == 0;
    pthread_attr_destroy(&attr);
    return started_;
  }
  static void *loop(void *self) {
    auto *w = static_cast<LargeStackWorker *>(self);
    pthread_mutex_lock(&w->mu_);
    for (;;) {
      while (!w->job_) pthread_cond_wait(&w->cv_, &w->mu_);
      const std::function<void()> *fn = w->job_;
      pthread_mutex_unlock(&w->mu_);
      (*fn)();
      pthread_mutex_lock(&w->mu_);
      w->job_ = nullptr;
      pthread_cond_broadcast(&w->cv_);
    }
  }

  pthread_mutex_t mu_ = PTHREAD_MUTEX_INITIALIZER;
  pthread_cond_t cv_ = PTHREAD_COND_INITIALIZER;
  const std::function<void()> *job_ = nullptr;
  pthread_t thread_{};
  bool started_ = false;
};

} // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size > kMaxInput) return -1; // not added to the corpus
  std::string text(reinterpret_cast<const char *>(data), size);
  if (touchesSpecialFiles(text)) return -1;
  // A timeout's stack trace shows the thread that got the alarm: the main
  // thread, waiting. DX_FUZZ_NO_THREAD=1 runs here instead (8 MiB stack
  // unless raised with ulimit -s), so the trace shows the slow code.
  static const bool onThisThread = std::getenv("DX_FUZZ_NO_THREAD") != nullptr;
  static LargeStackWorker worker;
  if (onThisThread) runOne(text);
  else worker.run([&] { runOne(text); });
  return 0;
}
