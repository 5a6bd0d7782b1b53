// The native trace file of a C++ process run by `hipkit prof` (header-only):
// <HIPKIT_PROF_DIR>/<pid>.native.tsv, which hipkit/profiler/_native.py reads.
//
// Two writers include it: the CPU runtime's program tracing (profile.cpp, in
// libhipkit_cpu.so) and the CUPTI injection library of NVIDIA programs
// (hipkit/platforms/nvidia/cupti_inject.cpp).
//
// The format: one record per line, tab-separated, the first field the domain
// ("kernel", "copy", "api", "marker", "alloc", "device", "thread", "meta"),
// then the fields of that domain's spool row (hipkit/profiler/_spool.py) in
// order; a grid or block is one field "x,y,z"; a meta value is JSON.  Times
// are nanoseconds of CLOCK_MONOTONIC, the clock of Python's
// time.perf_counter_ns, so Python and C++ processes share one timeline.  In
// strings, a tab, a newline and a backslash are written "\t", "\n" and "\\".
//
// Lines are gathered in a buffer of kBufferBytes and written when it fills,
// at exit, and from a fatal signal's handler (flush_from_signal), so memory
// stays bounded and a crashing process leaves its records up to the crash; a
// line cut short by the crash is the last one, and the reader ignores it.
#ifndef HIPKIT_NATIVE_TRACE_H
#define HIPKIT_NATIVE_TRACE_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <atomic>
#include <charconv>
#include <cstdint>
#include <cstdio>
#include <cstring>
#include <string>

// Internal to the library that includes it (libhipkit_cpu.so, the CUPTI library).
#pragma GCC visibility push(hidden)

namespace hk_native {

inline int64_t monotonic_ns() {
  timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return int64_t(ts.tv_sec) * 1000000000 + ts.tv_nsec;
}

// Bumped in a child made by fork(), whose thread has a new id (Writer::open
// registers the handler).
inline std::atomic<unsigned> fork_generation{1};

// gettid(), asked once per thread (a system call) and again after a fork().
inline int32_t thread_id() {
  static thread_local int32_t cached = 0;
  static thread_local unsigned generation = 0;
  const unsigned now = fork_generation.load(std::memory_order_relaxed);
  if (generation != now) {
    cached = int32_t(syscall(SYS_gettid));
    generation = now;
  }
  return cached;
}

// One line being built: the domain, then each field after a tab.
class Line {
 public:
  Line& start(const char* domain) {
    text_.clear();
    text_ += domain;
    return *this;
  }
  Line& num(int64_t value) { return field(value); }
  Line& unum(uint64_t value) { return field(value); }
  Line& triple(const uint32_t v[3]) {
    field(v[0]);
    for (int i = 1; i < 3; ++i) {
      char digits[12];
      text_ += ',';
      text_.append(digits, std::to_chars(digits, digits + sizeof(digits), v[i]).ptr);
    }
    return *this;
  }
  Line& str(const char* text) {
    text_ += '\t';
    if (text == nullptr) return *this;
    for (;;) {
      const size_t plain = strcspn(text, "\t\n\\");
      text_.append(text, plain);
      text += plain;
      if (*text == '\0') return *this;
      text_ += '\\';
      text_ += *text == '\t' ? 't' : *text == '\n' ? 'n' : '\\';
      ++text;
    }
  }
  // A field written as it is (JSON of a meta value, made by the caller).
  Line& raw(const char* text) {
    text_ += '\t';
    text_ += text;
    return *this;
  }
  const std::string& end() {
    text_ += '\n';
    return text_;
  }

 private:
  template <class Integer>
  Line& field(Integer value) {
    char digits[24];
    text_ += '\t';
    text_.append(digits, std::to_chars(digits, digits + sizeof(digits), value).ptr);
    return *this;
  }

  std::string text_;
};

// The calling thread's T, made on first use, that outlives exit(): a C++
// thread_local object is destroyed as exit() begins, before the atexit
// handlers that end the trace (and the HIP calls of the program's static
// destructors); a pthread key's object is destroyed when its thread ends, and
// the main thread's never is.
template <class T>
T& per_thread() {
  static const pthread_key_t key = [] {
    pthread_key_t made;
    pthread_key_create(&made, [](void* object) { delete static_cast<T*>(object); });
    return made;
  }();
  void* object = pthread_getspecific(key);
  if (object == nullptr) {
    object = new T();
    pthread_setspecific(key, object);
  }
  return *static_cast<T*>(object);
}

// The calling thread's line (its storage is reused: no allocation per line
// once it has grown).
inline Line& line(const char* domain) { return per_thread<Line>().start(domain); }

class Writer {
 public:
  static constexpr size_t kBufferBytes = 256 << 10;

  // Creates <directory>/<pid>.native.tsv; false (errno set) if it cannot.
  bool open(const char* directory) {
    char path[4096];
    int n = snprintf(path, sizeof(path), "%s/%d.native.tsv", directory, int(getpid()));
    if (n < 0 || size_t(n) >= sizeof(path)) {
      errno = ENAMETOOLONG;
      return false;
    }
    fd_ = ::open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd_ < 0) return false;
    pthread_atfork(nullptr, nullptr,
                   [] { fork_generation.fetch_add(1, std::memory_order_relaxed); });
    return true;
  }

  bool is_open() const { return fd_ >= 0; }

  // Appends a whole line; writes the buffer out when it is full.
  void write(const std::string& text) {
    lock();
    if (fd_ >= 0) {
      if (used_.load(std::memory_order_relaxed) + text.size() > kBufferBytes) drain_locked();
      if (text.size() > kBufferBytes) {
        write_all(text.data(), text.size());  // a line longer than the buffer
      } else {
        const size_t used = used_.load(std::memory_order_relaxed);
        memcpy(buffer_ + used, text.data(), text.size());
        // Published after the copy: a signal handler writes [0, used_) only.
        used_.store(used + text.size(), std::memory_order_release);
      }
    }
    unlock();
  }

  void flush() {
    lock();
    drain_locked();
    unlock();
  }

  void close() {
    lock();
    drain_locked();
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    unlock();
  }

  // In a child made by fork(): the file and the lines are the parent's.
  void disown() {
    pthread_mutex_init(&mutex_, nullptr);  // the parent's lock holder does not exist here
    owner_.store(0, std::memory_order_relaxed);
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
    used_.store(0, std::memory_order_relaxed);
  }

  // From a fatal signal's handler: write the complete lines gathered so far
  // (only async-signal-safe calls).  If the signal interrupted this thread
  // while it held the lock, the lines before the one being added are written;
  // if another thread holds it, it is waited for a while (it only copies or
  // writes), then given up.
  void flush_from_signal() {
    const pid_t me = pid_t(syscall(SYS_gettid));
    if (owner_.load(std::memory_order_acquire) == me) {
      if (!writing_) write_all(buffer_, used_.load(std::memory_order_acquire));
      used_.store(0, std::memory_order_relaxed);
      return;
    }
    for (int attempt = 0; attempt < 1000; ++attempt) {
      if (pthread_mutex_trylock(&mutex_) == 0) {
        owner_.store(me, std::memory_order_relaxed);
        drain_locked();
        unlock();
        return;
      }
      const timespec pause = {0, 1000000};
      nanosleep(&pause, nullptr);
    }
  }

 private:
  void lock() {
    pthread_mutex_lock(&mutex_);
    owner_.store(thread_id(), std::memory_order_relaxed);
  }
  void unlock() {
    owner_.store(0, std::memory_order_relaxed);
    pthread_mutex_unlock(&mutex_);
  }

  void drain_locked() {
    const size_t used = used_.load(std::memory_order_relaxed);
    if (used == 0 || fd_ < 0) return;
    writing_ = true;
    write_all(buffer_, used);
    used_.store(0, std::memory_order_relaxed);
    writing_ = false;
  }

  void write_all(const char* data, size_t size) {
    while (size > 0 && fd_ >= 0) {
      ssize_t n = ::write(fd_, data, size);
      if (n < 0) {
        if (errno == EINTR) continue;
        return;  // a full disk: the trace ends here, the program goes on
      }
      data += n;
      size -= size_t(n);
    }
  }

  pthread_mutex_t mutex_ = PTHREAD_MUTEX_INITIALIZER;
  std::atomic<pid_t> owner_{0};  // the thread holding mutex_, for the signal handler
  bool writing_ = false;         // drain_locked() is writing the buffer out
  int fd_ = -1;
  std::atomic<size_t> used_{0};
  char buffer_[kBufferBytes];
};

// Fatal signals: the trace is written, then the signal takes its course (the
// handler that was there before ours, else the default action).
namespace fatal {

constexpr int kSignals[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT,
                            SIGTERM, SIGINT, SIGQUIT, SIGHUP};
inline Writer* writer = nullptr;
inline struct sigaction previous[NSIG];
inline std::atomic<bool> flushed{false};

inline void on_signal(int sig, siginfo_t* info, void* context) {
  if (!flushed.exchange(true) && writer != nullptr) writer->flush_from_signal();
  const struct sigaction& old = previous[sig];
  if ((old.sa_flags & SA_SIGINFO) != 0 && old.sa_sigaction != nullptr) {
    old.sa_sigaction(sig, info, context);
    return;
  }
  if ((old.sa_flags & SA_SIGINFO) == 0 && old.sa_handler != SIG_DFL && old.sa_handler != SIG_IGN) {
    old.sa_handler(sig);
    return;
  }
  struct sigaction fallback = {};
  fallback.sa_handler = old.sa_handler == SIG_IGN ? SIG_IGN : SIG_DFL;
  sigaction(sig, &fallback, nullptr);
  // A fault recurs when the instruction is retried; a signal that was sent
  // (kill, raise, abort) is sent again.
  if (info == nullptr || info->si_code <= 0) raise(sig);
}

// Installs the handlers (each signal's previous action is kept and chained).
inline void install(Writer* w) {
  writer = w;
  struct sigaction action = {};
  action.sa_sigaction = on_signal;
  action.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
  sigemptyset(&action.sa_mask);
  for (int sig : kSignals) {
    sigaction(sig, nullptr, &previous[sig]);
    if ((previous[sig].sa_flags & SA_SIGINFO) == 0 && previous[sig].sa_handler == SIG_IGN)
      continue;  // ignored (nohup's SIGHUP): stays ignored
    sigaction(sig, &action, nullptr);
  }
}

}  // namespace fatal

}  // namespace hk_native

#pragma GCC visibility pop

#endif  // HIPKIT_NATIVE_TRACE_H
