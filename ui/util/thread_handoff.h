#pragma once
// ThreadSanitizer annotations for the places where our data crosses threads
// through Qt: QThreadPool::start, QMetaObject::invokeMethod(...,
// Qt::QueuedConnection) and signals queued to an object on another thread.
//
// Qt (Debian's libQt6*) is not built with TSan, so the locks and atomics with
// which it hands a task or a queued call to the other thread are invisible to
// TSan, and every read of the handed data on the receiving side looks like a
// race with its writes on the sending side. The functions here state those
// happens-before edges explicitly: a release on the sending thread after its
// last write, an acquire on the receiving thread before its first read. They
// only tell TSan what Qt already guarantees and synchronise nothing
// themselves. Without TSan (FLOWLENS_TSAN, which the tsan preset sets because
// the build hides __SANITIZE_THREAD__, see CMakeLists.txt) they are no-ops
// and handed(f) is f itself.
//
// A channel is only an address (nothing is read or written there); each
// hand-off site uses its own, so an acquire pairs only with the releases of
// the same kind of hand-off.
#include <type_traits>
#include <utility>

#if defined(FLOWLENS_TSAN) || defined(__SANITIZE_THREAD__)
#define FLOWLENS_HANDOFF_ANNOTATIONS 1
#include <sanitizer/tsan_interface.h>
// Exported by libtsan (tsan_interface.cpp), not declared in its header.
extern "C" void __tsan_ignore_thread_begin();
extern "C" void __tsan_ignore_thread_end();
#endif

namespace flowlens::ui::handoff {

#ifdef FLOWLENS_HANDOFF_ANNOTATIONS

// On the sending thread, after the last write to what is handed over.
inline void release(const void* channel) { __tsan_release(const_cast<void*>(channel)); }
// On the receiving thread, before the first read of what was handed over.
inline void acquire(const void* channel) { __tsan_acquire(const_cast<void*>(channel)); }

// While one lives, TSan does not record this thread's plain loads and stores
// (locks and atomics still synchronise). Only around the emit of a signal
// queued to another thread: Qt copies the arguments inside the emit, on this
// thread, after any release placed before it, and only the receiving slot
// (after its acquire) reads those copies. Never around code that runs slots
// directly.
class IgnoreAccesses {
 public:
  IgnoreAccesses() { __tsan_ignore_thread_begin(); }
  ~IgnoreAccesses() { __tsan_ignore_thread_end(); }
  IgnoreAccesses(const IgnoreAccesses&) = delete;
  IgnoreAccesses& operator=(const IgnoreAccesses&) = delete;
};

// A callable handed to another thread (QThreadPool::start, or
// QMetaObject::invokeMethod queued to an object living there). Qt copies or
// moves it a few times on the sending thread before queueing it; each of those
// ends with a release, so the last one (the copy Qt keeps) publishes the
// captures and everything the sender wrote before. Calling it, or destroying
// it (also when Qt drops a queued call whose receiver is gone), starts with an
// acquire on whichever thread does it. The channel is per callable type, i.e.
// per lambda expression: one per hand-off site.
template <class F>
class Handed {
 public:
  explicit Handed(F f) : f_(std::move(f)) { publish(); }
  Handed(const Handed& other) : f_(other.f_) { publish(); }
  Handed(Handed&& other) noexcept(std::is_nothrow_move_constructible_v<F>) : f_(std::move(other.f_)) { publish(); }
  Handed& operator=(const Handed&) = delete;
  Handed& operator=(Handed&&) = delete;
  ~Handed() { receive(); }  // before f_ (and its captures) is destroyed

  decltype(auto) operator()() {
    receive();
    return f_();
  }

 private:
  static void publish() { release(&channel_); }
  static void receive() { acquire(&channel_); }

  static inline char channel_ = 0;
  F f_;
};

template <class F>
Handed<F> handed(F f) {
  return Handed<F>(std::move(f));
}

#else

inline void release(const void*) {}
inline void acquire(const void*) {}

class IgnoreAccesses {
 public:
  IgnoreAccesses() = default;
  IgnoreAccesses(const IgnoreAccesses&) = delete;
  IgnoreAccesses& operator=(const IgnoreAccesses&) = delete;
};

template <class F>
F handed(F f) {
  return f;
}

#endif

}  // namespace flowlens::ui::handoff
