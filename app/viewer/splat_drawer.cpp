// CudaDrawer (built only with CUDA): the texture and its registration, the depth + colour buffer,
// and the per-draw surface object over the mapped texture; the kernels are in splat_cuda.cu.
#include "viewer/cuda_check.hpp"
#include "viewer/splat.hpp"
#include "viewer/splat_drawer.hpp"

#include <voxhash/error.hpp>

#include <cuda_gl_interop.h>
#include <cuda_runtime.h>

#include <glm/gtc/type_ptr.hpp>

#include <algorithm>
#include <cstring>
#include <string>

namespace voxhash::viewer {
namespace {

class CudaDrawer final : public ViewDrawer {
 public:
  CudaDrawer()                             = default;
  CudaDrawer(const CudaDrawer&)            = delete;
  CudaDrawer& operator=(const CudaDrawer&) = delete;
  ~CudaDrawer() override { release(); }

  void set_view(const DrawSettings& settings,
                const glm::mat4& view_proj,
                const glm::vec3& light_dir,
                Float3 voxel_size,
                int width,
                int height) override {
    if (width != m_params.width || height != m_params.height) resize(width, height);
    std::memcpy(m_params.view_proj, glm::value_ptr(view_proj), sizeof m_params.view_proj);
    const glm::mat4 inverse = glm::inverse(view_proj);
    std::memcpy(m_params.inv_view_proj, glm::value_ptr(inverse), sizeof m_params.inv_view_proj);
    const glm::vec4 plane = settings.clip.equation();
    std::memcpy(m_params.clip_plane, glm::value_ptr(plane), sizeof m_params.clip_plane);
    const glm::vec3 light = glm::normalize(light_dir);
    std::memcpy(m_params.light_dir, glm::value_ptr(light), sizeof m_params.light_dir);
    m_params.ambient      = settings.ambient;
    const float half      = 0.5f * settings.voxel_scale;
    m_params.half_size[0] = voxel_size.x * half;
    m_params.half_size[1] = voxel_size.y * half;
    m_params.half_size[2] = voxel_size.z * half;
    m_params.point_size   = std::max(1, static_cast<int>(settings.point_size + 0.5f));
    m_params.background =
        splat::pack_rgba(palette::kBackground[0], palette::kBackground[1], palette::kBackground[2]);
    m_settings = settings;
  }

  [[nodiscard]] GLuint texture() const override { return m_texture.id(); }
  [[nodiscard]] void* resource() override { return m_resource; }

  void draw(const std::array<const Float3*, 2>& points,
            const std::array<const VoxelInstance*, 2>& voxels,
            const SceneBuffers& buffers,
            void* stream) override {
    if (!m_resource) return;
    const Layers& layers = m_settings.layers;
    const Colors& colors = m_settings.colors;
    std::array<splat::ModelDraw, 2> models;
    for (int i = 0; i < 2; ++i) {
      splat::ModelDraw& m = models[i];
      if (layers.points[i]) {
        m.points      = points[i];
        m.point_count = static_cast<std::uint32_t>(buffers.point_count[i]);
        m.point_color =
            splat::pack_rgba(colors.points[i][0], colors.points[i][1], colors.points[i][2]);
      }
      m.voxels      = voxels[i];
      m.voxel_count = static_cast<std::uint32_t>(buffers.voxel_ranges[i].total());
      // Intersection voxels belong to both models: drawn once, with model 0's.
      m.labels[0]                        = layers.outside[i];
      m.labels[1]                        = layers.inside[i];
      m.labels[2]                        = layers.intersection && i == 0;
      const palette::Rgb label_colors[3] = {
          colors.outside[i], colors.inside[i], colors.intersection};
      for (int l = 0; l < kVoxelLabels; ++l)
        std::copy(label_colors[l].begin(), label_colors[l].end(), m.label_colors[l]);
    }
    cudaArray_t array = nullptr;
    check_cuda(cudaGraphicsSubResourceGetMappedArray(&array, m_resource, 0, 0),
               "cudaGraphicsSubResourceGetMappedArray");
    cudaResourceDesc desc{};
    desc.resType                = cudaResourceTypeArray;
    desc.res.array.array        = array;
    cudaSurfaceObject_t surface = 0;
    check_cuda(cudaCreateSurfaceObject(&surface, &desc), "cudaCreateSurfaceObject");
    try {
      splat::draw(m_params, models, m_depth_color, surface, stream);
    } catch (...) {
      cudaDestroySurfaceObject(surface);
      throw;
    }
    // Destroying the object does not wait for the kernels that use it.
    check_cuda(cudaDestroySurfaceObject(surface), "cudaDestroySurfaceObject");
  }

 private:
  void resize(int width, int height) {
    release();
    GLuint id = 0;
    glCreateTextures(GL_TEXTURE_2D, 1, &id);
    m_texture = GlTexture(id);
    glTextureStorage2D(id, 1, GL_RGBA8, width, height);
    glTextureParameteri(id, GL_TEXTURE_MIN_FILTER, GL_NEAREST);
    glTextureParameteri(id, GL_TEXTURE_MAG_FILTER, GL_NEAREST);
    check_cuda(cudaGraphicsGLRegisterImage(&m_resource,
                                           id,
                                           GL_TEXTURE_2D,
                                           cudaGraphicsRegisterFlagsSurfaceLoadStore |
                                               cudaGraphicsRegisterFlagsWriteDiscard),
               "cudaGraphicsGLRegisterImage");
    check_cuda(cudaMalloc(&m_depth_color,
                          static_cast<std::size_t>(width) * height * sizeof(unsigned long long)),
               "cudaMalloc (depth and colour)");
    m_params.width  = width;
    m_params.height = height;
  }

  void release() noexcept {
    if (m_resource) cudaGraphicsUnregisterResource(m_resource);
    m_resource = nullptr;
    if (m_depth_color) cudaFree(m_depth_color);
    m_depth_color = nullptr;
    m_texture.reset();
    m_params.width = m_params.height = 0;
  }

  GlTexture m_texture;
  cudaGraphicsResource_t m_resource = nullptr;
  unsigned long long* m_depth_color = nullptr;
  splat::SplatParams m_params;
  DrawSettings m_settings;
};

}  // namespace

std::unique_ptr<ViewDrawer> make_cuda_drawer() {
  return std::make_unique<CudaDrawer>();
}

}  // namespace voxhash::viewer
