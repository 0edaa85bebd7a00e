// GL loading, version check and the RAII helpers declared in gl.hpp.
#include "viewer/gl.hpp"

#include <voxhash/error.hpp>

namespace voxhash::viewer {

void load_gl(GLADloadfunc get_proc) {
  const int version = gladLoadGL(get_proc);
  if (version == 0) throw Error("could not load OpenGL functions for the current context");
  if (GLAD_VERSION_MAJOR(version) * 10 + GLAD_VERSION_MINOR(version) < 45) {
    throw Error("OpenGL 4.5 core is required, the context offers " + describe_gl());
  }
}

std::string describe_gl() {
  auto text = [](GLenum name) {
    const auto* s = reinterpret_cast<const char*>(glGetString(name));
    return std::string(s ? s : "?");
  };
  return text(GL_RENDERER) + " (OpenGL " + text(GL_VERSION) + ")";
}

namespace detail {
void delete_buffer(GLuint id) {
  glDeleteBuffers(1, &id);
}
void delete_vertex_array(GLuint id) {
  glDeleteVertexArrays(1, &id);
}
void delete_program(GLuint id) {
  glDeleteProgram(id);
}
void delete_framebuffer(GLuint id) {
  glDeleteFramebuffers(1, &id);
}
void delete_renderbuffer(GLuint id) {
  glDeleteRenderbuffers(1, &id);
}
void delete_texture(GLuint id) {
  glDeleteTextures(1, &id);
}
}  // namespace detail

GlBuffer make_buffer(std::size_t bytes) {
  GLuint id = 0;
  glCreateBuffers(1, &id);
  GlBuffer buffer(id);
  glNamedBufferData(id, static_cast<GLsizeiptr>(bytes), nullptr, GL_DYNAMIC_DRAW);
  if (glGetError() == GL_OUT_OF_MEMORY) {
    throw OutOfMemory("OpenGL out of memory: could not allocate a " + std::to_string(bytes >> 20) +
                      " MiB buffer");
  }
  return buffer;
}

namespace {

GLuint compile(std::string_view name, GLenum stage, std::string_view source) {
  const GLuint shader = glCreateShader(stage);
  const char* text    = source.data();
  const auto length   = static_cast<GLint>(source.size());
  glShaderSource(shader, 1, &text, &length);
  glCompileShader(shader);
  GLint ok = 0;
  glGetShaderiv(shader, GL_COMPILE_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetShaderInfoLog(shader, sizeof(log), nullptr, log);
    glDeleteShader(shader);
    throw Error("shader '" + std::string(name) +
                (stage == GL_VERTEX_SHADER ? "' (vertex)" : "' (fragment)") +
                " does not compile: " + log);
  }
  return shader;
}

}  // namespace

GlProgram make_program(std::string_view name,
                       std::string_view vertex_source,
                       std::string_view fragment_source) {
  const GLuint vertex   = compile(name, GL_VERTEX_SHADER, vertex_source);
  const GLuint fragment = compile(name, GL_FRAGMENT_SHADER, fragment_source);
  GlProgram program(glCreateProgram());
  glAttachShader(program.id(), vertex);
  glAttachShader(program.id(), fragment);
  glLinkProgram(program.id());
  glDeleteShader(vertex);
  glDeleteShader(fragment);
  GLint ok = 0;
  glGetProgramiv(program.id(), GL_LINK_STATUS, &ok);
  if (!ok) {
    char log[2048] = {};
    glGetProgramInfoLog(program.id(), sizeof(log), nullptr, log);
    throw Error("shader program '" + std::string(name) + "' does not link: " + log);
  }
  return program;
}

OffscreenFramebuffer::OffscreenFramebuffer(int width, int height) {
  GLuint ids[2] = {};
  glCreateRenderbuffers(2, ids);
  m_color = GlRenderbuffer(ids[0]);
  m_depth = GlRenderbuffer(ids[1]);
  glNamedRenderbufferStorage(m_color.id(), GL_RGBA8, width, height);
  glNamedRenderbufferStorage(m_depth.id(), GL_DEPTH_COMPONENT24, width, height);
  GLuint fb = 0;
  glCreateFramebuffers(1, &fb);
  m_framebuffer = GlFramebuffer(fb);
  glNamedFramebufferRenderbuffer(fb, GL_COLOR_ATTACHMENT0, GL_RENDERBUFFER, m_color.id());
  glNamedFramebufferRenderbuffer(fb, GL_DEPTH_ATTACHMENT, GL_RENDERBUFFER, m_depth.id());
  if (glCheckNamedFramebufferStatus(fb, GL_FRAMEBUFFER) != GL_FRAMEBUFFER_COMPLETE) {
    throw Error("offscreen framebuffer of " + std::to_string(width) + "x" + std::to_string(height) +
                " is incomplete");
  }
  bind();
}

void OffscreenFramebuffer::bind() const {
  glBindFramebuffer(GL_FRAMEBUFFER, m_framebuffer.id());
  glReadBuffer(GL_COLOR_ATTACHMENT0);
}

}  // namespace voxhash::viewer
