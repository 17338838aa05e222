#pragma once
// What the hostile-input tests need besides node_runner.h: a node's memory
// and open descriptors from /proc, and raw TCP peers that do what no ZeroMQ
// socket would (idle connections, a ZMTP frame announced larger than sent).
#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <QDir>
#include <QFile>
#include <QString>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstdint>
#include <string>

namespace flowlens::testing {

// VmRSS of process `pid` in MiB; -1 when it cannot be read.
inline double rss_mib(qint64 pid) {
  QFile f(QString("/proc/%1/status").arg(pid));
  if (!f.open(QIODevice::ReadOnly)) return -1;
  for (const QByteArray& line : f.readAll().split('\n'))
    if (line.startsWith("VmRSS:")) return line.mid(6).trimmed().split(' ').front().toDouble() / 1024.0;
  return -1;
}

// Descriptors process `pid` holds open.
inline int open_descriptors(qint64 pid) {
  return static_cast<int>(QDir(QString("/proc/%1/fd").arg(pid)).entryList(QDir::NoDotAndDotDot | QDir::System).size());
}

// Sets this process's soft open-file limit (what children started now inherit); returns the old one.
inline rlim_t set_open_file_limit(rlim_t soft) {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  const rlim_t old = limit.rlim_cur;
  limit.rlim_cur = std::min(soft, limit.rlim_max);
  ::setrlimit(RLIMIT_NOFILE, &limit);
  return old;
}

// This process's soft open-file limit.
inline rlim_t current_open_file_limit() {
  rlimit limit{};
  ::getrlimit(RLIMIT_NOFILE, &limit);
  return limit.rlim_cur;
}

// A TCP connection to 127.0.0.1:port; -1 on failure.
inline int tcp_connect(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

// Starts a TCP connection to 127.0.0.1:port without waiting for it (a node
// that cannot accept would otherwise stall the caller); -1 on failure.
inline int tcp_connect_nowait(int port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  addr.sin_port = htons(static_cast<uint16_t>(port));
  if (fd >= 0 && (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0 || errno == EINPROGRESS)) return fd;
  if (fd >= 0) ::close(fd);
  return -1;
}

inline bool send_all(int fd, const void* data, std::size_t size) {
  const char* p = static_cast<const char*>(data);
  while (size > 0) {
    const ssize_t n = ::send(fd, p, size, MSG_NOSIGNAL);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Reads exactly `size` bytes within `timeout`; false when the peer hung up or was too slow.
inline bool recv_exactly(int fd, void* data, std::size_t size, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char* p = static_cast<char*>(data);
  while (size > 0) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    pollfd pf{fd, POLLIN, 0};
    if (left.count() <= 0 || ::poll(&pf, 1, static_cast<int>(left.count())) <= 0) return false;
    const ssize_t n = ::recv(fd, p, size, 0);
    if (n <= 0) return false;
    p += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Opens a ZMTP 3.0 session as a `socket_type` ("DEALER", "SUB") with the
// NULL mechanism (an open cluster's node takes it like any client's), and
// waits for the node's greeting and READY, as a real peer does (frames sent
// before that may cost the handshake). Returns the descriptor or -1.
inline int zmtp_connect(int port, const std::string& socket_type = "DEALER") {
  const int fd = tcp_connect(port);
  if (fd < 0) return -1;
  unsigned char greeting[64] = {0xFF, 0, 0, 0, 0, 0, 0, 0, 1, 0x7F, 3, 0, 'N', 'U', 'L', 'L'};
  const std::string ready = std::string("\x05READY", 6) + "\x0bSocket-Type" + std::string("\0\0\0", 3) +
                            static_cast<char>(socket_type.size()) + socket_type;
  const std::string command = std::string(1, '\x04') + std::string(1, static_cast<char>(ready.size())) + ready;
  unsigned char peer_greeting[64], command_head[2];
  std::string peer_ready;
  const auto timeout = std::chrono::seconds(5);
  bool ok = send_all(fd, greeting, sizeof greeting) && send_all(fd, command.data(), command.size()) &&
            recv_exactly(fd, peer_greeting, sizeof peer_greeting, timeout) &&
            recv_exactly(fd, command_head, sizeof command_head, timeout) && command_head[0] == 0x04;
  if (ok) {
    peer_ready.resize(command_head[1]);
    ok = recv_exactly(fd, peer_ready.data(), peer_ready.size(), timeout) && peer_ready.starts_with("\x05READY");
  }
  if (!ok) {
    ::close(fd);
    return -1;
  }
  return fd;
}

// Announces one frame of `announced` bytes on a ZMTP session and sends the
// first `sent` of them (zeros). False when the peer hung up before.
inline bool zmtp_announce_frame(int fd, uint64_t announced, std::size_t sent) {
  unsigned char head[9] = {0x02};  // a long frame, the last of its message
  for (int i = 0; i < 8; ++i) head[1 + i] = static_cast<unsigned char>(announced >> (8 * (7 - i)));
  if (!send_all(fd, head, sizeof head)) return false;
  const std::string chunk(1 << 20, '\0');
  for (std::size_t done = 0; done < sent; done += chunk.size())
    if (!send_all(fd, chunk.data(), std::min(chunk.size(), sent - done))) return false;
  return true;
}

// Whether the peer closed `fd` within `timeout` (what it sent meanwhile is discarded).
inline bool peer_hangs_up(int fd, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  char buffer[4096];
  for (;;) {
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, POLLIN, 0};
    if (::poll(&p, 1, static_cast<int>(left.count())) <= 0) continue;
    if (::recv(fd, buffer, sizeof buffer, 0) <= 0) return true;
  }
}

}  // namespace flowlens::testing
