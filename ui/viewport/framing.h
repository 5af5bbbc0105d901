// SPDX-License-Identifier: GPL-3.0-or-later
// The region a fit of the 3D view keeps in view (CameraController::fit frames it): a ball, or for a
// planar mechanism points on a cylinder's rims, holding every body over its motion about the pivots,
// and with comparison copies side by side, every copy.
#pragma once

#include <vector>

#include "core/types.h"
#include "system/compiled_system.h"
#include "viewport/overlays.h"

namespace ms::ui::viewport {

// The region a fit keeps in view: a ball, or for planar mechanisms points on a cylinder's rims.
struct Framing {
  Vec3 center = Vec3::Zero();  // the camera turns about it
  double radius = 0;           // of the ball holding the region
  std::vector<Vec3> rim;
};

// What a fit holds in view, around the centre of the pivots (joints on the ground) when there are
// some: a mechanism hinged to the world can swing anywhere within its reach of them, so the framed
// region holds every body over its motion, not just where it is now. Each point's reach is bounded
// along the joints (shortest paths through joint points to the pivots, then to the point); a
// mechanism whose joints to its bodies are all hinges about one direction n moves in planes ⊥ n, so
// its region is a flat cylinder about the pivots' axis instead of a ball (it frames ~1.4× larger).
// boxCorners[i]: the 8 world corners of body i's shapes' box at its pose in `poses` (empty: the body
// has none); `system` may be null (bodies only). With overReach false, the region is the model where it
// is now (and where it lands on a ground), as MuJoCo frames a model: what imported robots get, whose
// reach about their base is far larger than the pose their authors put them in. False when there
// is nothing to frame.
bool frameMechanism(const CompiledSystem* system, const Poses& poses, const std::vector<std::vector<Vec3>>& boxCorners,
                    Framing& out, bool overReach = true);
// With copies side by side, the region holds every copy: the reference's region and its translates
// by k · offset, k = 1 … copies.
void frameCopies(Framing& region, const Vec3& offset, size_t copies);

}  // namespace ms::ui::viewport
