// The server under misbehaving clients: malformed and oversized requests get a Status, a client
// that stalls mid-request or stops reading a watch does not hold up anyone else, and several
// watches stream side by side. The simulated clock is paused and stepped through /eksim/v1/clock,
// so nothing here depends on wall-clock time: a reply that never comes fails the test by ctest's
// timeout, not by a deadline in the test.
#include "sim/serve/http_server.hpp"

#include <gtest/gtest.h>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <thread>

#include "sim/scenario/scenario.hpp"
#include "sim/serve/http_client.hpp"

namespace eksim::serve {
namespace {

class Served : public ::testing::Test {
 protected:
  Served() {
    session = std::make_unique<Session>(std::make_unique<scenario::Scenario>(scenario::load_scenario(
                                            std::string(EKSIM_SOURCE_DIR) + "/scenarios/labs/000-gpu-pod-no-toleration.yaml")),
                                        std::nullopt, *parse_speed("paused", nullptr));
    ServerOptions o;
    o.port = 0;
    o.max_body_bytes = 64 * 1024;
    server = std::make_unique<HttpServer>(*session, o);
    url = "http://127.0.0.1:" + std::to_string(server->port());
    thread = std::thread([this] { server->run(); });
  }
  ~Served() override {
    server->stop();
    thread.join();
  }

  int connect_raw() {
    int fd = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(server->port());
    inet_pton(AF_INET, "127.0.0.1", &addr.sin_addr);
    EXPECT_EQ(connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr), 0);
    return fd;
  }
  static void send_all(int fd, const std::string& data) {
    std::size_t sent = 0;
    while (sent < data.size()) {
      ssize_t n = send(fd, data.data() + sent, data.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<std::size_t>(n);
    }
  }
  // Reads until `needle` appears or the server closes the connection.
  static std::string read_until(int fd, const std::string& needle) {
    std::string got;
    while (got.find(needle) == std::string::npos) {
      char buf[8192];
      ssize_t n = recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;
      got.append(buf, static_cast<std::size_t>(n));
    }
    return got;
  }

  std::unique_ptr<Session> session;
  std::unique_ptr<HttpServer> server;
  std::string url;
  std::thread thread;
};

TEST_F(Served, MalformedAndOversizedRequestsGetAStatusAndTheServerGoesOn) {
  int fd = connect_raw();
  send_all(fd, "NOT HTTP AT ALL\r\n\r\n");
  std::string reply = read_until(fd, "}");
  EXPECT_NE(reply.find("400 Bad Request"), std::string::npos) << reply;
  EXPECT_NE(reply.find("\"kind\":\"Status\""), std::string::npos) << reply;
  close(fd);

  HttpResult big = http_call(url, "POST", "/api/v1/namespaces/default/pods", std::string(100 * 1024, 'x'));
  EXPECT_EQ(big.status, 413);
  EXPECT_NE(big.body.find("RequestEntityTooLarge"), std::string::npos);
  HttpResult garbage = http_call(url, "POST", "/api/v1/namespaces/default/pods", "\x01\x02 not json");
  EXPECT_EQ(garbage.status, 400);
  EXPECT_EQ(http_call(url, "GET", "/version").status, 200);
}

TEST_F(Served, AStalledClientDoesNotHoldUpOthers) {
  int slow = connect_raw();
  send_all(slow, "GET /version HTTP/1.1\r\nHost: x\r\nContent-Le");  // and then nothing
  // Another client is answered while the first one's request is still incomplete...
  EXPECT_EQ(http_call(url, "GET", "/api/v1/nodes").status, 200);
  // ...and the stalled one is still served once it finishes its request.
  send_all(slow, "ngth: 0\r\nConnection: close\r\n\r\n");
  std::string reply = read_until(slow, "gitVersion");
  EXPECT_NE(reply.find("HTTP/1.1 200"), std::string::npos) << reply;
  EXPECT_NE(reply.find("gitVersion"), std::string::npos) << reply;
  close(slow);
}

TEST_F(Served, ConcurrentWatchesEachSeeTheChanges) {
  std::string request = "GET /api/v1/namespaces/default/pods?watch=true HTTP/1.1\r\nHost: x\r\nAccept: application/json\r\n\r\n";
  int a = connect_raw(), b = connect_raw(), stalled = connect_raw();
  send_all(a, request);
  send_all(b, request);
  send_all(stalled, request);  // never read
  // Both get the current pod as ADDED, then its changes once simulated time moves on.
  std::string got_a = read_until(a, "\"ADDED\"");
  std::string got_b = read_until(b, "\"ADDED\"");
  HttpResult step = http_call(url, "POST", "/eksim/v1/clock", R"({"action":"advance","by":"10m"})");
  ASSERT_EQ(step.status, 200) << step.body;
  got_a += read_until(a, "\"MODIFIED\"");
  got_b += read_until(b, "\"MODIFIED\"");
  EXPECT_NE(got_a.find("Transfer-Encoding: chunked"), std::string::npos) << got_a;
  EXPECT_NE(got_a.find("{\"object\":{\"apiVersion\":\"v1\",\"kind\":\"Pod\""), std::string::npos) << got_a;
  EXPECT_NE(got_a.find("\"type\":\"ADDED\""), std::string::npos) << got_a;
  EXPECT_NE(got_a.find("\"type\":\"MODIFIED\""), std::string::npos) << got_a;
  EXPECT_NE(got_b.find("\"type\":\"MODIFIED\""), std::string::npos) << got_b;
  EXPECT_EQ(http_call(url, "GET", "/version").status, 200);
  close(a);
  close(b);
  close(stalled);
  EXPECT_EQ(http_call(url, "GET", "/api/v1/pods").status, 200);
}

}  // namespace
}  // namespace eksim::serve
