// OpenGL 4.5 core through GLAD 2, and the few RAII handles the viewer needs (buffers, vertex
// arrays, shader programs, an offscreen framebuffer). Every file that calls GL includes this.
#pragma once

#include <glad/gl.h>

#include <cstddef>
#include <string>
#include <string_view>
#include <utility>

namespace voxhash::viewer {

/// Loads GL entry points with `get_proc` for the current context and checks that it provides
/// OpenGL 4.5; throws voxhash::Error naming the version and renderer otherwise.
void load_gl(GLADloadfunc get_proc);

/// "renderer (GL version)" of the current context.
[[nodiscard]] std::string describe_gl();

/// A GL object name with a deleter; move-only.
template <void (*Delete)(GLuint)>
class GlHandle {
 public:
  GlHandle() = default;
  explicit GlHandle(GLuint id) : m_id(id) {}
  GlHandle(GlHandle&& other) noexcept : m_id(std::exchange(other.m_id, 0)) {}
  GlHandle& operator=(GlHandle&& other) noexcept {
    if (this != &other) {
      reset();
      m_id = std::exchange(other.m_id, 0);
    }
    return *this;
  }
  GlHandle(const GlHandle&)            = delete;
  GlHandle& operator=(const GlHandle&) = delete;
  ~GlHandle() { reset(); }

  [[nodiscard]] GLuint id() const noexcept { return m_id; }
  void reset() noexcept {
    if (m_id) Delete(m_id);
    m_id = 0;
  }

 private:
  GLuint m_id = 0;
};

namespace detail {
void delete_buffer(GLuint id);
void delete_vertex_array(GLuint id);
void delete_program(GLuint id);
void delete_framebuffer(GLuint id);
void delete_renderbuffer(GLuint id);
void delete_texture(GLuint id);
}  // namespace detail

using GlBuffer       = GlHandle<detail::delete_buffer>;
using GlVertexArray  = GlHandle<detail::delete_vertex_array>;
using GlProgram      = GlHandle<detail::delete_program>;
using GlFramebuffer  = GlHandle<detail::delete_framebuffer>;
using GlRenderbuffer = GlHandle<detail::delete_renderbuffer>;
using GlTexture      = GlHandle<detail::delete_texture>;

/// A buffer of `bytes` bytes (contents undefined) for data written every frame.
[[nodiscard]] GlBuffer make_buffer(std::size_t bytes);

/// Compiles and links a vertex + fragment program; throws voxhash::Error with the info log.
[[nodiscard]] GlProgram make_program(std::string_view name,
                                     std::string_view vertex_source,
                                     std::string_view fragment_source);

/// An RGBA8 + depth framebuffer for offscreen rendering, bound for drawing and reading.
class OffscreenFramebuffer {
 public:
  OffscreenFramebuffer(int width, int height);
  void bind() const;

 private:
  GlFramebuffer m_framebuffer;
  GlRenderbuffer m_color;
  GlRenderbuffer m_depth;
};

}  // namespace voxhash::viewer
