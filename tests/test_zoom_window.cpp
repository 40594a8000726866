// The focus view's zoom and pan over a matrix (app/state/zoom_window.h).
#include <catch2/catch.hpp>

#include <limits>

#include "state/zoom_window.h"

TEST_CASE("a matrix is shown whole until zoomed", "[zoom]") {
    app::ZoomWindow z;
    z.show("head 1/weights", 8192, 8192);
    CHECK(z.block() == app::CellBlock{0, 0, 8192, 8192});
    CHECK_FALSE(z.zoomed());
    z.pan(100, 100);  // nothing to pan over
    CHECK(z.block() == app::CellBlock{0, 0, 8192, 8192});
}

TEST_CASE("zooming keeps the cell under the pointer under it", "[zoom]") {
    app::ZoomWindow z;
    z.show("w", 8192, 8192);
    z.zoom_about(4.0, 0.25, 0.75);  // the pointer on cell (2048, 6144)
    const app::CellBlock b = z.block();
    CHECK(b.rows == 2048);
    CHECK(b.cols == 2048);
    CHECK(b.row0 + 0.25 * b.rows == Approx(2048).margin(1));
    CHECK(b.col0 + 0.75 * b.cols == Approx(6144).margin(1));
    // And out again by the same factor: the whole matrix.
    z.zoom_about(0.25, 0.25, 0.75);
    CHECK(z.block() == app::CellBlock{0, 0, 8192, 8192});
}

TEST_CASE("the block stays within the matrix, however far it is zoomed or panned", "[zoom]") {
    app::ZoomWindow z;
    z.show("w", 8192, 64);  // a tall stage: the queries of one head
    z.zoom_about(8.0, 1.0, 1.0);
    app::CellBlock b = z.block();
    CHECK(b.rows == 1024);
    CHECK(b.cols == 8);
    CHECK(b.row0 + b.rows == 8192);  // the bottom right corner stays where the pointer was
    CHECK(b.col0 + b.cols == 64);
    z.pan(-1e9, -1e9);
    b = z.block();
    CHECK(b.row0 == 0);
    CHECK(b.col0 == 0);
    z.zoom_about(1e9, 0.5, 0.5);  // at most a few cells a side
    b = z.block();
    CHECK(b.cols == app::ZoomWindow::kMinCells);
    CHECK(b.rows >= app::ZoomWindow::kMinCells);
    z.zoom_about(0.0, 0.5, 0.5);  // nonsense factors are ignored
    z.zoom_about(std::numeric_limits<double>::quiet_NaN(), 0.5, 0.5);
    CHECK(z.block() == b);
}

TEST_CASE("another stage is shown whole, a new run of the same one keeps the zoom", "[zoom]") {
    app::ZoomWindow z;
    z.show("head 1/weights", 512, 512);
    z.zoom_about(2.0, 0.5, 0.5);
    const app::CellBlock zoomed = z.block();
    CHECK(zoomed.rows == 256);
    z.show("head 1/weights", 512, 512);
    CHECK(z.block() == zoomed);
    z.show("head 2/weights", 512, 512);
    CHECK(z.block() == app::CellBlock{0, 0, 512, 512});
    z.show("head 2/weights", 3, 3);  // smaller than the smallest block
    z.zoom_about(10.0, 0.5, 0.5);
    CHECK(z.block() == app::CellBlock{0, 0, 3, 3});
    z.show("empty", 0, 0);
    CHECK(z.block() == app::CellBlock{0, 0, 0, 0});
}
