// hiprtc for whole programs: hipkit's own compiler, which is Python, run as a
// child process by each hkrt_rtc_compile.  The child (hipkit/cc/rtc.py)
// compiles with hipkit.hip's hiprtc on the CPU platform, so a program gets
// the code object, the log, the errors and the compile cache the Python API
// gets.
//
// The request goes to the child's stdin as JSON; the answer comes from its
// stdout as fields, each "NAME LENGTH\n" and LENGTH bytes: "result" (a
// hiprtcResult in decimal), "log", and after a successful compile "code" and
// one "lowered" per name expression, in order.  stdin, stdout and stderr are
// anonymous in-memory files read once the child has exited: no pipes to keep
// flowing, nothing on disk.
#include <fcntl.h>
#include <spawn.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <hipkit_cpu/runtime_module.h>
#include <new>
#include <string>
#include <unordered_set>
#include <utility>
#include <vector>

#include "internal.h"

extern char** environ;

struct hkrt_rtc_program {
  std::string source, name;
  std::vector<std::pair<std::string, std::string>> headers;  // include name, text
  std::vector<std::string> expressions;                      // name expressions
  bool compiled = false;                                     // hkrt_rtc_compile was called
  bool succeeded = false;                                    // ... and compiled the program
  std::string log, code;
  std::vector<std::string> lowered;  // of each name expression
};

namespace hk {

namespace {

Mutex programs_mutex;
std::unordered_set<hkrt_rtc_program*> programs;  // the live ones, under programs_mutex

bool live(hkrt_rtc_program* program) {
  Lock lock(programs_mutex);
  return programs.count(program) != 0;
}

// Python's str.strip(), which hipkit.hip applies to name expressions.
std::string stripped(const char* text) {
  const char* space = " \t\n\r\f\v";
  std::string s(text);
  size_t begin = s.find_first_not_of(space);
  if (begin == std::string::npos) return "";
  return s.substr(begin, s.find_last_not_of(space) - begin + 1);
}

void json_string(std::string& out, const std::string& text) {
  out += '"';
  for (unsigned char c : text) {
    if (c == '"' || c == '\\') {
      out += '\\';
      out += char(c);
    } else if (c < 0x20) {
      char escaped[8];
      snprintf(escaped, sizeof(escaped), "\\u%04x", c);
      out += escaped;
    } else {
      out += char(c);
    }
  }
  out += '"';
}

void json_strings(std::string& out, const std::vector<std::string>& items) {
  out += '[';
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) out += ',';
    json_string(out, items[i]);
  }
  out += ']';
}

std::string request(const hkrt_rtc_program& p, const std::vector<std::string>& options) {
  std::string out = "{\"source\":";
  json_string(out, p.source);
  out += ",\"name\":";
  json_string(out, p.name);
  out += ",\"headers\":[";
  for (size_t i = 0; i < p.headers.size(); ++i) {
    out += i > 0 ? ",[" : "[";
    json_string(out, p.headers[i].first);
    out += ',';
    json_string(out, p.headers[i].second);
    out += ']';
  }
  out += "],\"options\":";
  json_strings(out, options);
  out += ",\"name_expressions\":";
  json_strings(out, p.expressions);
  out += '}';
  return out;
}

bool write_all(int fd, const std::string& data) {
  for (size_t done = 0; done < data.size();) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    done += size_t(n);
  }
  return lseek(fd, 0, SEEK_SET) == 0;
}

std::string read_all(int fd) {
  std::string out;
  if (lseek(fd, 0, SEEK_SET) != 0) return out;
  char buffer[65536];
  for (;;) {
    ssize_t n = read(fd, buffer, sizeof(buffer));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buffer, size_t(n));
  }
}

// The environment of the child: this process's, with hipkit's compiler on
// the CPU platform at the program's warp size, and without what would make
// the child something else than a compiler (a profile of its own, hidden
// devices).
std::vector<std::string> child_environment(uint32_t warp_size, const char* python_path) {
  static const char* const kReplaced[] = {
      "HIPKIT_PLATFORM",      "HIPKIT_CPU_WARP_SIZE", "HIPKIT_CPU_THREADS",
      "HIPKIT_PROF_DIR",      "HIP_VISIBLE_DEVICES",  "CUDA_VISIBLE_DEVICES",
      "ROCR_VISIBLE_DEVICES", "PYTHONPATH"};
  std::vector<std::string> env;
  std::string old_path;
  for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
    const char* equals = strchr(*e, '=');
    if (equals == nullptr) continue;
    const std::string name(*e, size_t(equals - *e));
    if (name == "PYTHONPATH") old_path = equals + 1;
    bool replaced = false;
    for (const char* r : kReplaced) replaced = replaced || name == r;
    if (!replaced) env.emplace_back(*e);
  }
  env.emplace_back("HIPKIT_PLATFORM=cpu");
  env.emplace_back("HIPKIT_CPU_WARP_SIZE=" + std::to_string(warp_size));
  env.emplace_back("HIPKIT_CPU_THREADS=1");  // it compiles, it runs no kernel
  std::string path = python_path != nullptr ? python_path : "";
  if (!old_path.empty()) path += path.empty() ? old_path : ":" + old_path;
  if (!path.empty()) env.push_back("PYTHONPATH=" + path);
  return env;
}

struct Child {
  std::string failure;  // why it could not run ("" when it ran)
  int status = 0;       // waitpid's
  std::string out, err;
};

// Runs `python` on hipkit/cc/rtc.py's main with `input` on stdin.
Child run_compiler(const char* python, const std::vector<std::string>& env, const std::string& input) {
  Child child;
  int fds[3] = {memfd_create("hipkit-rtc-in", MFD_CLOEXEC), memfd_create("hipkit-rtc-out", MFD_CLOEXEC),
                memfd_create("hipkit-rtc-err", MFD_CLOEXEC)};
  auto close_all = [&] {
    for (int fd : fds)
      if (fd >= 0) close(fd);
  };
  if (fds[0] < 0 || fds[1] < 0 || fds[2] < 0 || !write_all(fds[0], input)) {
    child.failure = std::string("memfd_create: ") + strerror(errno);
    close_all();
    return child;
  }
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  for (int i = 0; i < 3; ++i) posix_spawn_file_actions_adddup2(&actions, fds[i], i);
  // -c, not -m: sys.path[0] would be the working directory, where a folder
  // named hipkit would be taken for the package.
  const char* code = "import sys; sys.path.pop(0); from hipkit.cc import rtc; sys.exit(rtc.main())";
  char* argv[] = {const_cast<char*>(python), const_cast<char*>("-c"), const_cast<char*>(code),
                  nullptr};
  std::vector<char*> envp;
  for (const std::string& e : env) envp.push_back(const_cast<char*>(e.c_str()));
  envp.push_back(nullptr);
  pid_t pid = 0;
  int error = posix_spawnp(&pid, python, &actions, nullptr, argv, envp.data());
  posix_spawn_file_actions_destroy(&actions);
  if (error != 0) {
    child.failure = std::string(python) + ": " + strerror(error);
    close_all();
    return child;
  }
  while (waitpid(pid, &child.status, 0) < 0) {
    if (errno != EINTR) {
      child.failure = std::string("waitpid: ") + strerror(errno);
      break;
    }
  }
  child.out = read_all(fds[1]);
  child.err = read_all(fds[2]);
  close_all();
  return child;
}

// The fields of the child's answer, in order; false if it is malformed.
bool parse_fields(const std::string& text, std::vector<std::pair<std::string, std::string>>* fields) {
  size_t at = 0;
  while (at < text.size()) {
    size_t space = text.find(' ', at), newline = text.find('\n', at);
    if (space == std::string::npos || newline == std::string::npos || space > newline) return false;
    char* end = nullptr;
    unsigned long long length = strtoull(text.c_str() + space + 1, &end, 10);
    if (end != text.c_str() + newline || length > text.size() - newline - 1) return false;
    fields->emplace_back(text.substr(at, space - at), text.substr(newline + 1, size_t(length)));
    at = newline + 1 + size_t(length);
  }
  return true;
}

std::string exit_description(int status) {
  if (WIFSIGNALED(status)) return "killed by signal " + std::to_string(WTERMSIG(status));
  return "exit status " + std::to_string(WEXITSTATUS(status));
}

int compile(hkrt_rtc_program* p, const std::vector<std::string>& options, uint32_t warp_size,
            const char* recorded_python, const char* python_path) {
  const char* python = getenv("HIPKIT_RTC_PYTHON");
  const bool chosen = python != nullptr && python[0] != '\0';
  if (!chosen) python = recorded_python;
  if (python == nullptr || python[0] == '\0') {
    p->log = "hiprtc: no Python to run hipkit's compiler: set HIPKIT_RTC_PYTHON\n";
    return HKRT_RTC_ERROR_INTERNAL_ERROR;
  }
  // A Python chosen by HIPKIT_RTC_PYTHON finds hipkit where it is installed.
  Child child = run_compiler(python, child_environment(warp_size, chosen ? nullptr : python_path),
                             request(*p, options));
  const std::string how = "set HIPKIT_RTC_PYTHON to a Python with hipkit installed";
  if (!child.failure.empty()) {
    p->log = "hiprtc: cannot run hipkit's compiler: " + child.failure + " (" + how + ")\n";
    return HKRT_RTC_ERROR_INTERNAL_ERROR;
  }
  std::vector<std::pair<std::string, std::string>> fields;
  const bool answered = WIFEXITED(child.status) && WEXITSTATUS(child.status) == 0 &&
                        parse_fields(child.out, &fields) && !fields.empty() &&
                        fields[0].first == "result";
  if (!answered) {
    p->log = "hiprtc: hipkit's compiler (" + std::string(python) + ") failed, " +
             exit_description(child.status) + " (" + how + "):\n" + child.err;
    return HKRT_RTC_ERROR_INTERNAL_ERROR;
  }
  const int result = atoi(fields[0].second.c_str());
  std::vector<std::string> lowered;
  for (auto& field : fields) {
    if (field.first == "log") p->log = std::move(field.second);
    if (field.first == "code") p->code = std::move(field.second);
    if (field.first == "lowered") lowered.push_back(std::move(field.second));
  }
  p->log += child.err;  // the compiler's warnings through Python's logging
  if (result != HKRT_RTC_SUCCESS) return result;
  if (lowered.size() != p->expressions.size()) {
    p->log += "hiprtc: hipkit's compiler answered " + std::to_string(lowered.size()) +
              " lowered names for " + std::to_string(p->expressions.size()) +
              " name expressions\n";
    p->code.clear();
    return HKRT_RTC_ERROR_INTERNAL_ERROR;
  }
  p->lowered = std::move(lowered);
  p->succeeded = true;
  return HKRT_RTC_SUCCESS;
}

}  // namespace

}  // namespace hk

using namespace hk;

extern "C" {

int hkrt_rtc_create(hkrt_rtc_program** out, const char* source, const char* name, int num_headers,
                    const char* const* headers, const char* const* include_names) {
  if (out == nullptr || source == nullptr || num_headers < 0) return HKRT_RTC_ERROR_INVALID_INPUT;
  if (num_headers > 0 && (headers == nullptr || include_names == nullptr))
    return HKRT_RTC_ERROR_INVALID_INPUT;
  for (int i = 0; i < num_headers; ++i)
    if (headers[i] == nullptr || include_names[i] == nullptr) return HKRT_RTC_ERROR_INVALID_INPUT;
  auto* p = new (std::nothrow) hkrt_rtc_program;
  if (p == nullptr) return HKRT_RTC_ERROR_OUT_OF_MEMORY;
  try {
    p->source = source;
    p->name = name != nullptr && name[0] != '\0' ? name : "default_program";
    for (int i = 0; i < num_headers; ++i) p->headers.emplace_back(include_names[i], headers[i]);
    Lock lock(programs_mutex);
    programs.insert(p);
  } catch (const std::bad_alloc&) {
    delete p;
    return HKRT_RTC_ERROR_OUT_OF_MEMORY;
  }
  *out = p;
  return HKRT_RTC_SUCCESS;
}

int hkrt_rtc_destroy(hkrt_rtc_program* program) {
  {
    Lock lock(programs_mutex);
    if (programs.erase(program) == 0) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  }
  delete program;
  return HKRT_RTC_SUCCESS;
}

int hkrt_rtc_add_name_expression(hkrt_rtc_program* program, const char* expression) {
  if (!live(program)) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (program->compiled) return HKRT_RTC_ERROR_NO_NAME_EXPRESSIONS_AFTER_COMPILATION;
  if (expression == nullptr) return HKRT_RTC_ERROR_INVALID_INPUT;
  std::string text = stripped(expression);
  if (text.empty()) return HKRT_RTC_ERROR_INVALID_INPUT;
  for (const std::string& e : program->expressions)
    if (e == text) return HKRT_RTC_SUCCESS;
  program->expressions.push_back(std::move(text));
  return HKRT_RTC_SUCCESS;
}

int hkrt_rtc_compile(hkrt_rtc_program* program, int num_options, const char* const* options,
                     uint32_t warp_size, const char* python, const char* python_path) {
  if (!live(program)) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (num_options < 0 || (num_options > 0 && options == nullptr))
    return HKRT_RTC_ERROR_INVALID_INPUT;
  std::vector<std::string> list;
  for (int i = 0; i < num_options; ++i) {
    if (options[i] == nullptr) return HKRT_RTC_ERROR_INVALID_INPUT;
    list.emplace_back(options[i]);
  }
  program->compiled = true;
  program->succeeded = false;
  program->log.clear();
  program->code.clear();
  program->lowered.clear();
  try {
    return compile(program, list, warp_size, python, python_path);
  } catch (const std::bad_alloc&) {
    program->code.clear();
    return HKRT_RTC_ERROR_OUT_OF_MEMORY;
  }
}

int hkrt_rtc_log(hkrt_rtc_program* program, const char** log, size_t* size) {
  if (!live(program)) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (log != nullptr) *log = program->log.c_str();
  if (size != nullptr) *size = program->log.size() + 1;
  return HKRT_RTC_SUCCESS;
}

int hkrt_rtc_code(hkrt_rtc_program* program, const void** code, size_t* size) {
  if (!live(program)) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (!program->succeeded) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (code != nullptr) *code = program->code.data();
  if (size != nullptr) *size = program->code.size();
  return HKRT_RTC_SUCCESS;
}

int hkrt_rtc_lowered_name(hkrt_rtc_program* program, const char* expression,
                          const char** lowered) {
  if (!live(program)) return HKRT_RTC_ERROR_INVALID_PROGRAM;
  if (!program->compiled) return HKRT_RTC_ERROR_NO_LOWERED_NAMES_BEFORE_COMPILATION;
  if (expression == nullptr || lowered == nullptr) return HKRT_RTC_ERROR_INVALID_INPUT;
  const std::string text = stripped(expression);
  for (size_t i = 0; i < program->expressions.size(); ++i) {
    if (program->expressions[i] != text) continue;
    if (!program->succeeded) return HKRT_RTC_ERROR_INVALID_PROGRAM;
    *lowered = program->lowered[i].c_str();
    return HKRT_RTC_SUCCESS;
  }
  return HKRT_RTC_ERROR_NAME_EXPRESSION_NOT_VALID;
}

}  // extern "C"
