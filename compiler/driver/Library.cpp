#include "driver/Library.h"

#include "llvm/Support/FileSystem.h"
#include "llvm/Support/Program.h"
#include "llvm/Support/raw_ostream.h"

#include <cctype>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace dx {
namespace {

#include "InferHeader.inc"

std::string upper(const std::string &s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::toupper(c)) : '_';
  return out;
}

std::string identifier(const std::string &s) {
  std::string out;
  for (char c : s) out += std::isalnum(static_cast<unsigned char>(c)) ? static_cast<char>(std::tolower(c)) : '_';
  if (out.empty() || std::isdigit(static_cast<unsigned char>(out[0]))) out = "m_" + out;
  return out;
}

int64_t perSampleFloats(const TensorType &t) {
  int64_t n = 1;
  for (size_t k = 1; k < t.dims.size(); ++k) n *= t.dims[k].size;
  return n;
}

std::string header(const Program &prog, const std::string &stem) {
  const Graph &g = prog.models.front().graph;
  const std::string P = upper(stem);
  std::ostringstream h;
  h << "/* " << stem << ".h: the inference library of the DeepEx model '" << prog.models.front().decl->name.name
    << "', written by dxc compile --emit=lib. */\n";
  h << "#ifndef " << P << "_DX_H\n#define " << P << "_DX_H\n\n";
  h << kInferHeader << "\n";
  h << "/* This model's sizes (per sample), as dx_model_input_floats / dx_model_output_floats report them. */\n";
  h << "#define " << P << "_INPUT_FLOATS " << perSampleFloats(g.values[g.inputs[0]].type) << "\n";
  h << "#define " << P << "_NUM_OUTPUTS " << g.outputs.size() << "\n";
  for (size_t k = 0; k < g.outputs.size(); ++k)
    h << "#define " << P << "_OUTPUT_" << upper(g.outputNames[k]) << "_FLOATS "
      << perSampleFloats(g.values[g.outputs[k]].type) << " /* output " << k << " */\n";
  h << "\n#endif\n";
  return h.str();
}

// A Fortran module over the C API: the model's sizes as parameters, and
// interfaces whose names follow the C functions.
std::string fortran(const Program &prog, const std::string &stem) {
  const Graph &g = prog.models.front().graph;
  std::ostringstream f;
  f << "! " << stem << ".f90: Fortran bindings of the DeepEx model '" << prog.models.front().decl->name.name
    << "' (dxc compile --emit=lib).\n";
  f << "! Arrays are passed as C pointers: x(input_floats, n) and out_k(output_floats_k, n) in\n";
  f << "! Fortran order are the C layout, sample after sample. See docs/inference.md.\n";
  f << "module " << identifier(stem) << "_dx\n";
  f << "  use, intrinsic :: iso_c_binding\n  implicit none\n\n";
  f << "  integer(c_int), parameter :: dx_ok = 0\n";
  f << "  integer(c_int64_t), parameter :: input_floats = " << perSampleFloats(g.values[g.inputs[0]].type) << "_c_int64_t\n";
  f << "  integer(c_int), parameter :: num_outputs = " << g.outputs.size() << "\n";
  for (size_t k = 0; k < g.outputs.size(); ++k)
    f << "  integer(c_int64_t), parameter :: output_floats_" << identifier(g.outputNames[k]) << " = "
      << perSampleFloats(g.values[g.outputs[k]].type) << "_c_int64_t\n";
  f << R"(
  interface
    integer(c_int) function dx_model_open(weights_dir, max_batch, model) bind(c, name="dx_model_open")
      import :: c_int, c_int64_t, c_char, c_ptr
      character(kind=c_char), dimension(*), intent(in) :: weights_dir
      integer(c_int64_t), value :: max_batch
      type(c_ptr), intent(out) :: model
    end function
    subroutine dx_model_close(model) bind(c, name="dx_model_close")
      import :: c_ptr
      type(c_ptr), value :: model
    end subroutine
    integer(c_int) function dx_model_predict(model, x, n, outputs) bind(c, name="dx_model_predict")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: model, x, outputs
      integer(c_int64_t), value :: n
    end function
    type(c_ptr) function dx_model_error_c(model) bind(c, name="dx_model_error")
      import :: c_ptr
      type(c_ptr), value :: model
    end function
    type(c_ptr) function dx_model_last_error_c() bind(c, name="dx_model_last_error")
      import :: c_ptr
    end function
    integer(c_int64_t) function dx_model_output_floats(model, k) bind(c, name="dx_model_output_floats")
      import :: c_int, c_int64_t, c_ptr
      type(c_ptr), value :: model
      integer(c_int), value :: k
    end function
    integer(c_int64_t) function c_strlen(s) bind(c, name="strlen")
      import :: c_int64_t, c_ptr
      type(c_ptr), value :: s
    end function
  end interface

contains

  ! A C string as a Fortran string.
  function dx_string(p) result(s)
    type(c_ptr), intent(in) :: p
    character(len=:), allocatable :: s
    character(kind=c_char), pointer :: chars(:)
    integer :: i, n
    n = int(c_strlen(p))
    call c_f_pointer(p, chars, [n])
    allocate(character(len=n) :: s)
    do i = 1, n
      s(i:i) = chars(i)
    end do
  end function

  ! The message of the last failed call on model (c_null_ptr: of the last failed open).
  function dx_model_error(model) result(s)
    type(c_ptr), intent(in) :: model
    character(len=:), allocatable :: s
    if (c_associated(model)) then
      s = dx_string(dx_model_error_c(model))
    else
      s = dx_string(dx_model_last_error_c())
    end if
  end function
end module
)";
  return f.str();
}

std::string pkgConfig(const std::string &stem, const std::string &dir, const std::string &archive,
                      const std::vector<std::string> &runtimeLink, bool shared) {
  std::ostringstream p;
  p << "# " << stem << ".pc: pkg-config of the DeepEx model library (dxc compile --emit=lib).\n";
  p << "#   cc app.c $(pkg-config --cflags --libs " << dir << "/" << stem << ".pc)\n";
  p << "Name: " << stem << "\nDescription: DeepEx model " << stem << " (inference)\nVersion: 1\n";
  p << "Cflags: -I" << dir << "\n";
  if (shared) { // everything is inside; the run path finds it where it was written
    p << "Libs: -L" << dir << " -Wl,-rpath," << dir << " -l" << stem << "\n";
    return p.str();
  }
  // A group: the C API (libdxrt_infer) needs libdxrt, which needs the model's
  // functions, which need libdxrt's kernels. libdxrt is C++: a C or Fortran
  // program links the C++ runtime too.
  p << "Libs: -Wl,--start-group " << archive;
  for (const std::string &a : runtimeLink) p << " " << a;
  p << " -Wl,--end-group -lstdc++\n";
  return p.str();
}

// A shared object cannot take archives of position-dependent code (Debian's
// libpng16.a, for one): the libraries around libdxrt are taken as the
// shared objects beside their archives where there are some (libpng16.a ->
// libpng16.so). DeepEx's own archives (libdxrt*.a, PIC) stay in.
std::vector<std::string> sharedFriendly(const std::vector<std::string> &link) {
  std::vector<std::string> out;
  for (const std::string &a : link) {
    std::filesystem::path p(a);
    const std::string name = p.filename().string();
    std::error_code ec;
    if (p.extension() == ".a" && name.rfind("libdxrt", 0) != 0) {
      std::filesystem::path so = p;
      so.replace_extension(".so");
      if (std::filesystem::exists(so, ec)) {
        out.push_back(so.string());
        continue;
      }
    }
    out.push_back(a);
  }
  return out;
}

// libNAME.so: the model object and the C API whole, libdxrt and the rest as
// needed; only the dx_model_* functions exported (the version script), so
// that nothing inside (OpenBLAS, libdxrt's own symbols) meets the host
// program's.
int linkShared(const std::string &object, const std::string &output, const std::vector<std::string> &runtimeLink,
               const std::string &dir) {
  const std::vector<std::string> driver = linkDriver();
  if (driver.empty()) return 1;
  const std::string script = dir + "/." + libraryStem(output) + ".exports";
  {
    std::ofstream f(script);
    f << "{ global: dx_model_*; local: *; };\n";
    if (!f) {
      llvm::errs() << "dxc: error: cannot write " << script << "\n";
      return 1;
    }
  }
  std::vector<std::string> args = driver;
  args.insert(args.end(), {"-shared", "-o", output, "-Wl,--version-script=" + script, "-Wl,--whole-archive", object});
  std::vector<std::string> rest = sharedFriendly(runtimeLink);
  if (!rest.empty()) args.push_back(rest.front()); // the C API, whole: nothing inside calls it
  args.push_back("-Wl,--no-whole-archive");
  args.insert(args.end(), rest.begin() + (rest.empty() ? 0 : 1), rest.end());
  std::vector<llvm::StringRef> refs(args.begin(), args.end());
  std::string msg;
  const int rc = llvm::sys::ExecuteAndWait(driver[0], refs, std::nullopt, {}, 0, 0, &msg);
  std::error_code ec;
  std::filesystem::remove(script, ec);
  if (rc != 0) {
    llvm::errs() << "dxc: error: linking the shared library failed" << (msg.empty() ? "" : ": " + msg)
                 << "\n  command:";
    for (const std::string &a : args) llvm::errs() << " " << a;
    llvm::errs() << "\n";
    return 1;
  }
  return 0;
}

bool writeFile(const std::string &path, const std::string &text) {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    f << text;
    if (!f) return false;
  }
  std::error_code ec;
  std::filesystem::rename(tmp, path, ec);
  return !ec;
}

} // namespace

#ifndef DX_LINKER_FLAG
#define DX_LINKER_FLAG ""
#endif

std::vector<std::string> linkDriver() {
  const char *env = std::getenv("DXC_CXX");
  const std::string cxx = env ? env : "c++";
  auto found = llvm::sys::findProgramByName(cxx);
  if (!found) {
    llvm::errs() << "dxc: error: cannot find the C++ driver '" << cxx << "' to link with (set DXC_CXX)\n";
    return {};
  }
  std::vector<std::string> command = {*found};
  // The build's choice of linker (DX_LINKER in CMake: lld where c++ took
  // -fuse-ld=lld), with the default driver only: a driver of one's own links
  // with its own default. lld links an executable with the static OpenBLAS in
  // 0.6 s where GNU ld takes 4-5; without ld.lld on PATH (an install moved to
  // another machine) the driver's default linker it is.
  const std::string flag = DX_LINKER_FLAG;
  const std::string prefix = "-fuse-ld=";
  if (!env && !flag.empty() &&
      (flag.rfind(prefix, 0) != 0 || llvm::sys::findProgramByName("ld." + flag.substr(prefix.size()))))
    command.push_back(flag);
  return command;
}

std::string libraryStem(const std::string &output) {
  std::string name = std::filesystem::path(output).filename().string();
  if (name.size() > 2 && name.compare(name.size() - 2, 2, ".a") == 0) name.resize(name.size() - 2);
  if (name.size() > 2 && name.compare(name.size() - 3, 3, ".so") == 0) name.resize(name.size() - 3);
  if (name.rfind("lib", 0) == 0 && name.size() > 3) name = name.substr(3);
  return name;
}

int writeModelLibrary(const Program &prog, const std::string &object, const std::string &output,
                      const std::vector<std::string> &runtimeLink) {
  if (prog.models.empty()) {
    llvm::errs() << "dxc: error: no trained model to make a library of\n";
    return 1;
  }
  std::error_code ec;
  const std::filesystem::path out = std::filesystem::absolute(output, ec);
  const std::string dir = out.parent_path().string(), stem = libraryStem(output);
  const bool shared = out.extension() == ".so";
  if (out.extension() != ".a" && !shared) {
    llvm::errs() << "dxc: error: --emit=lib writes a static library (.a) or a shared one (.so): -o must name such a "
                 << "file (e.g. lib" << stem << ".a or lib" << stem << ".so), not '" << output << "'\n";
    return 1;
  }
  std::filesystem::create_directories(out.parent_path(), ec);
  std::filesystem::remove(out, ec);
  const std::string library = out.string();
  if (shared) {
    if (linkShared(object, library, runtimeLink, dir) != 0) return 1;
  } else {
    auto ar = llvm::sys::findProgramByName("ar");
    if (!ar) {
      llvm::errs() << "dxc: error: cannot find 'ar' to make " << output << "\n";
      return 1;
    }
    std::vector<llvm::StringRef> args = {*ar, "rcs", library, object};
    std::string msg;
    if (llvm::sys::ExecuteAndWait(*ar, args, std::nullopt, {}, 0, 0, &msg) != 0 || !std::filesystem::exists(library)) {
      llvm::errs() << "dxc: error: ar failed to write " << output << (msg.empty() ? "" : ": " + msg) << "\n";
      return 1;
    }
  }
  const std::string files[3][2] = {{dir + "/" + stem + ".h", header(prog, stem)},
                                   {dir + "/" + stem + ".f90", fortran(prog, stem)},
                                   {dir + "/" + stem + ".pc", pkgConfig(stem, dir, library, runtimeLink, shared)}};
  for (const auto &[path, text] : files)
    if (!writeFile(path, text)) {
      llvm::errs() << "dxc: error: cannot write " << path << "\n";
      return 1;
    }
  return 0;
}

} // namespace dx
