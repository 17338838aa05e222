#pragma once
// Distinct free TCP ports on 127.0.0.1 for tests and benchmarks that start cluster
// nodes (node_runner.h, bench/attach.cpp, bench/transport.cpp). No Qt, so
// the benchmarks can use it as they are.
#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <random>
#include <vector>

namespace flowlens::testing {

// `count` distinct free TCP ports on 127.0.0.1, below the kernel's ephemeral
// range (32768-60999 by default). A port the kernel hands out for bind(0) is
// also what it picks as the source port of an outgoing connection, so between
// closing it here and a node binding it, any process on the machine (a ZeroMQ
// client of a test running in parallel, for one) could take it: that showed
// up as "Address already in use" under the slower sanitizer builds. Ports in
// [20000, 32768) are only ever bound explicitly; each is checked by binding
// it, and all are held until every port is chosen.
inline std::vector<int> free_ports(int count) {
  static std::mt19937 rng(static_cast<unsigned>(::getpid()) ^
                          static_cast<unsigned>(std::chrono::steady_clock::now().time_since_epoch().count()));
  std::uniform_int_distribution<int> pick(20000, 32767);
  std::vector<int> fds, ports;
  while (static_cast<int>(ports.size()) < count) {
    const int port = pick(rng);
    if (std::find(ports.begin(), ports.end(), port) != ports.end()) continue;
    int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    addr.sin_port = htons(static_cast<uint16_t>(port));
    if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      ::close(fd);
      continue;  // in use
    }
    fds.push_back(fd);
    ports.push_back(port);
  }
  for (int fd : fds) ::close(fd);
  return ports;
}

}  // namespace flowlens::testing
