package data

import (
	"fmt"
	"math"
	"math/rand/v2"
)

// The maze world: the offline stand-in for the paper's Minecraft set. An agent walks a seeded
// grid maze and sees it egocentrically through a ray caster (walls with a colour and a texture
// per wall type, sky and floor gradients). Each frame carries one action from {forward, left,
// right}, so turning reveals and hides parts of the scene. Action t is the one taken after
// frame t−1 to reach frame t (frame 0 gets the action that led into it, drawn like the others).
//
// Two policies choose the actions. "corridor" (the default) walks the corridors: it moves
// forward from block centre to block centre and, at a junction, a bend or a dead end, picks an
// open direction and turns in place until it faces it — every frame shows corridor depth, and
// turns are whole quarter turns whose frames pan the view. "random" draws actions with
// persistence and turns when the way forward is blocked, so it often stands facing a wall.

// Maze actions, one-hot encoded in the conditions in this order.
const (
	ActionForward = iota
	ActionLeft
	ActionRight
)

// MazeConfig configures the maze world.
type MazeConfig struct {
	Cells       int     // the maze is Cells×Cells corridors (a (2·Cells+1)² block grid)
	WallTypes   int     // distinct wall colours/textures, 1…len(wallPalette)
	Step        float64 // forward move per action, in blocks
	Turn        float64 // turn per action, radians
	FOV         float64 // horizontal field of view, radians
	Persistence float64 // "random" policy: probability of repeating the previous action
	// PForward: "random" policy: probability of forward when a new action is drawn (the rest is
	// split between left and right); "corridor": probability of going straight on at a junction
	// where that is possible (the rest is split among the side openings).
	PForward float64
	Policy   string  // "corridor" or "random" (see above)
	Texture  string  // wall texture: "panels" (flat panels, a dark seam at every block edge) or "bricks"
	Fog      float64 // distance fog: wall brightness falls as exp(−Fog·distance)
	// CameraBack places the camera this far (blocks, < 0.5) behind the agent, looking the same way.
	CameraBack float64
	// Glance: "corridor" policy: probability, at each step with no turn pending, of looking
	// aside — turning 1…k steps (k per quarter turn) to a random side and back again — so that
	// turns are seen from every view, not only at junctions (0: never; the first zoo's world).
	Glance float64 `json:",omitempty"`
	// WarmUp: before a clip's first frame the agent walks a seeded number of steps in [0, WarmUp]
	// without being drawn, so that clips start anywhere along a walk (mid-corridor, mid-turn)
	// rather than always at a cell centre facing an open direction.
	WarmUp int
	// WallHeight: walls are this many blocks high, the camera at half their height (0 means 1:
	// the first zoo's world, where a wall in front fills the view). Lower walls keep a band of
	// sky and floor in every frame, so that a turn or a step shows even when facing a wall.
	WallHeight float64 `json:",omitempty"`
}

// DefaultMazeConfig is the world used by the demo, the model zoo and the tests: the corridor
// policy, panelled walls and light fog, at which small models learn to follow the actions.
func DefaultMazeConfig() MazeConfig {
	return MazeConfig{Cells: 6, WallTypes: 4, Step: 0.25, Turn: math.Pi / 12, FOV: math.Pi / 2.5, Persistence: 0.75, PForward: 0.6,
		Policy: "corridor", Texture: "panels", Fog: 0.08, CameraBack: 0.4, WarmUp: 64}
}

// RandomWalkMazeConfig is the earlier maze: a random policy with persistence, brick walls.
func RandomWalkMazeConfig() MazeConfig {
	return MazeConfig{Cells: 6, WallTypes: 4, Step: 0.25, Turn: math.Pi / 12, FOV: math.Pi / 2.5, Persistence: 0.75, PForward: 0.6,
		Policy: "random", Texture: "bricks", Fog: 0.12}
}

// Maze is the maze world.
type Maze struct{ cfg MazeConfig }

// NewMaze returns the maze world; bad settings are reported by Render.
func NewMaze(cfg MazeConfig) *Maze { return &Maze{cfg: cfg} }

func (m *Maze) Name() string        { return "maze" }
func (m *Maze) CondDim() int        { return 3 }
func (m *Maze) CondNames() []string { return []string{"forward", "left", "right"} }
func (m *Maze) Config() MazeConfig  { return m.cfg }

func (m *Maze) validate() error {
	c := m.cfg
	switch {
	case c.Cells < 2 || c.Cells > 64:
		return fmt.Errorf("data: MazeConfig.Cells = %d out of range: must be in [2, 64]", c.Cells)
	case c.WallTypes < 1 || c.WallTypes > len(wallPalette):
		return fmt.Errorf("data: MazeConfig.WallTypes = %d out of range: must be in [1, %d]", c.WallTypes, len(wallPalette))
	case !(c.Step > 0 && c.Step < 1):
		return fmt.Errorf("data: MazeConfig.Step = %g out of range: must be in (0, 1)", c.Step)
	case !(c.Turn > 0 && c.Turn < math.Pi):
		return fmt.Errorf("data: MazeConfig.Turn = %g out of range: must be in (0, π)", c.Turn)
	case !(c.FOV > 0 && c.FOV < math.Pi):
		return fmt.Errorf("data: MazeConfig.FOV = %g out of range: must be in (0, π)", c.FOV)
	case !(c.Persistence >= 0 && c.Persistence < 1):
		return fmt.Errorf("data: MazeConfig.Persistence = %g out of range: must be in [0, 1)", c.Persistence)
	case !(c.PForward >= 0 && c.PForward <= 1):
		return fmt.Errorf("data: MazeConfig.PForward = %g out of range: must be in [0, 1]", c.PForward)
	case c.Policy != "corridor" && c.Policy != "random":
		return fmt.Errorf("data: MazeConfig.Policy = %q unknown: must be \"corridor\" or \"random\"", c.Policy)
	case c.Texture != "panels" && c.Texture != "bricks":
		return fmt.Errorf("data: MazeConfig.Texture = %q unknown: must be \"panels\" or \"bricks\"", c.Texture)
	case c.WarmUp < 0 || c.WarmUp > 100000:
		return fmt.Errorf("data: MazeConfig.WarmUp = %d out of range: must be in [0, 100000]", c.WarmUp)
	case !(c.CameraBack >= 0 && c.CameraBack < 0.5):
		return fmt.Errorf("data: MazeConfig.CameraBack = %g out of range: must be in [0, 0.5)", c.CameraBack)
	case !(c.Glance >= 0 && c.Glance < 1):
		return fmt.Errorf("data: MazeConfig.Glance = %g out of range: must be in [0, 1)", c.Glance)
	case c.WallHeight != 0 && !(c.WallHeight >= 0.1 && c.WallHeight <= 4):
		return fmt.Errorf("data: MazeConfig.WallHeight = %g out of range: must be 0 (one block) or in [0.1, 4]", c.WallHeight)
	case !(c.Fog >= 0 && c.Fog <= 10):
		return fmt.Errorf("data: MazeConfig.Fog = %g out of range: must be in [0, 10]", c.Fog)
	}
	if c.Policy == "corridor" {
		if q := (math.Pi / 2) / c.Turn; math.Abs(q-math.Round(q)) > 1e-9 {
			return fmt.Errorf("data: MazeConfig.Turn = %g out of range: the corridor policy needs a whole number of turns per quarter turn (π/2k)", c.Turn)
		}
		if q := 1 / c.Step; math.Abs(q-math.Round(q)) > 1e-9 {
			return fmt.Errorf("data: MazeConfig.Step = %g out of range: the corridor policy needs a whole number of steps per block (1/k)", c.Step)
		}
	}
	return nil
}

// wallPalette holds the base colour of each wall type.
var wallPalette = [][3]float64{
	{0.80, 0.25, 0.20}, // brick red
	{0.25, 0.55, 0.85}, // blue
	{0.30, 0.70, 0.30}, // green
	{0.85, 0.75, 0.25}, // sand
	{0.60, 0.35, 0.70}, // purple
	{0.50, 0.50, 0.50}, // stone
}

// grid is a block maze: 0 is free, k > 0 a wall of type k.
type grid struct {
	n     int
	cells []uint8
}

func (g *grid) at(x, y int) uint8 {
	if x < 0 || y < 0 || x >= g.n || y >= g.n {
		return 1
	}
	return g.cells[y*g.n+x]
}

// generate carves a perfect maze by a seeded depth-first search, opens a few extra passages so
// that there are loops, and paints wall types in patches.
func (m *Maze) generate(rng *rand.Rand) *grid {
	c := m.cfg.Cells
	n := 2*c + 1
	g := &grid{n: n, cells: make([]uint8, n*n)}
	for i := range g.cells {
		g.cells[i] = 1
	}
	visited := make([]bool, c*c)
	type cell struct{ x, y int }
	stack := []cell{{rng.IntN(c), rng.IntN(c)}}
	visited[stack[0].y*c+stack[0].x] = true
	g.cells[(2*stack[0].y+1)*n+2*stack[0].x+1] = 0
	dirs := [4][2]int{{1, 0}, {-1, 0}, {0, 1}, {0, -1}}
	for len(stack) > 0 {
		cur := stack[len(stack)-1]
		var opts []int
		for d, dd := range dirs {
			nx, ny := cur.x+dd[0], cur.y+dd[1]
			if nx >= 0 && ny >= 0 && nx < c && ny < c && !visited[ny*c+nx] {
				opts = append(opts, d)
			}
		}
		if len(opts) == 0 {
			stack = stack[:len(stack)-1]
			continue
		}
		dd := dirs[opts[rng.IntN(len(opts))]]
		nx, ny := cur.x+dd[0], cur.y+dd[1]
		visited[ny*c+nx] = true
		g.cells[(2*cur.y+1+dd[1])*n+2*cur.x+1+dd[0]] = 0
		g.cells[(2*ny+1)*n+2*nx+1] = 0
		stack = append(stack, cell{nx, ny})
	}
	// Extra openings make loops (a perfect maze has long dead ends only).
	for k := 0; k < c; k++ {
		x, y := 1+rng.IntN(n-2), 1+rng.IntN(n-2)
		if (x+y)%2 == 1 {
			g.cells[y*n+x] = 0
		}
	}
	// Wall types come in patches: each wall takes the type of its nearest random anchor.
	anchors := make([][3]int, 6*m.cfg.WallTypes)
	for i := range anchors {
		anchors[i] = [3]int{rng.IntN(n), rng.IntN(n), 1 + i%m.cfg.WallTypes}
	}
	for y := 0; y < n; y++ {
		for x := 0; x < n; x++ {
			if g.cells[y*n+x] == 0 {
				continue
			}
			best, bd := 1, math.MaxInt
			for _, a := range anchors {
				if d := (a[0]-x)*(a[0]-x) + (a[1]-y)*(a[1]-y); d < bd {
					best, bd = a[2], d
				}
			}
			g.cells[y*n+x] = uint8(best)
		}
	}
	return g
}

// agent is the camera: a position in block units and a heading.
type agent struct{ x, y, angle float64 }

// Render implements World.
func (m *Maze) Render(seed uint64, frames, h, w int, pixels, cond []float64) error {
	if err := m.validate(); err != nil {
		return err
	}
	if err := checkBuffers(m, frames, h, w, pixels, cond); err != nil {
		return err
	}
	_, err := m.render(seed, frames, h, w, pixels, cond, nil)
	return err
}

// RenderActions renders the maze of this seed from the same start (the seed's warm-up walk
// included) as Render, but frame t takes actions[t] (ActionForward, ActionLeft or ActionRight)
// instead of the policy's choice; a forward move into a wall leaves the camera in place. Given
// the actions of another seed's clip, it shows what a perfect world model that draws its own
// maze would show for them: the reference for action agreement when a rollout's maze differs
// from the clip's. pixels is [len(actions), 3, h, w]; blocked counts the forward actions that
// met a wall (the corridor policy never walks into one).
func (m *Maze) RenderActions(seed uint64, actions []int, h, w int, pixels []float64) (blocked int, err error) {
	if err := m.validate(); err != nil {
		return 0, err
	}
	for t, a := range actions {
		if a < ActionForward || a > ActionRight {
			return 0, fmt.Errorf("data: actions[%d] = %d out of range: must be in [%d, %d] (forward, left, right)", t, a, ActionForward, ActionRight)
		}
	}
	if len(actions) < 1 {
		return 0, fmt.Errorf("data: len(actions) = 0 out of range: must be ≥ 1")
	}
	cond := make([]float64, len(actions)*3)
	if err := checkBuffers(m, len(actions), h, w, pixels, cond); err != nil {
		return 0, err
	}
	return m.render(seed, len(actions), h, w, pixels, cond, actions)
}

// render draws frames of the maze of seed: the policy's actions, or from frame 0 on the given
// ones when actions is not nil.
func (m *Maze) render(seed uint64, frames, h, w int, pixels, cond []float64, actions []int) (blocked int, err error) {
	rng := newRNG(seed)
	g := m.generate(rng)
	// Start in a random corridor cell facing one of its open directions (the random policy
	// adds ±20° to the heading).
	cx, cy := rng.IntN(m.cfg.Cells), rng.IntN(m.cfg.Cells)
	a := agent{x: 2*float64(cx) + 1.5, y: 2*float64(cy) + 1.5}
	var open []float64
	for k, d := range [4][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}} {
		if g.at(2*cx+1+d[0], 2*cy+1+d[1]) == 0 {
			open = append(open, float64(k)*math.Pi/2)
		}
	}
	a.angle = open[rng.IntN(len(open))]
	if m.cfg.Policy == "random" {
		a.angle += (rng.Float64() - 0.5) * math.Pi / 4.5
	}
	prev := ActionForward
	var plan []int // the corridor policy's pending turn actions
	warm := 0
	if m.cfg.WarmUp > 0 {
		warm = rng.IntN(m.cfg.WarmUp + 1)
	}
	for t := -warm; t < frames; t++ {
		var act int
		switch {
		case actions != nil && t >= 0:
			act = actions[t]
			if act == ActionForward && m.blocked(g, a) {
				blocked++
			}
		case m.cfg.Policy == "corridor":
			act, plan = m.corridorPolicy(rng, g, a, plan)
		default:
			act = m.policy(rng, g, a, prev)
		}
		a = m.act(g, a, act)
		if m.cfg.Policy == "corridor" {
			a = snap(a, m.cfg.Turn)
		}
		prev = act
		if t < 0 {
			continue // warming up: walked, not drawn
		}
		for i := 0; i < 3; i++ {
			cond[t*3+i] = 0
		}
		cond[t*3+act] = 1
		m.draw(g, a, h, w, pixels[t*3*h*w:(t+1)*3*h*w])
	}
	return blocked, nil
}

// corridorPolicy: follow the plan of turns if there is one; between block centres go forward;
// at a block centre choose where to go among the open directions other than back (straight on
// with probability PForward when open), turning around only in a dead end, and plan the turns.
func (m *Maze) corridorPolicy(rng *rand.Rand, g *grid, a agent, plan []int) (int, []int) {
	if len(plan) > 0 {
		return plan[0], plan[1:]
	}
	k := int(math.Round((math.Pi / 2) / m.cfg.Turn))
	if m.cfg.Glance > 0 && rng.Float64() < m.cfg.Glance {
		j, act, back := 1+rng.IntN(k), ActionLeft, ActionRight
		if rng.IntN(2) == 0 {
			act, back = back, act
		}
		plan = make([]int, 2*j)
		for i := range plan {
			plan[i] = act
			if i >= j {
				plan[i] = back
			}
		}
		return plan[0], plan[1:]
	}
	bx, by := math.Floor(a.x), math.Floor(a.y)
	if math.Abs(a.x-bx-0.5) > 1e-6 || math.Abs(a.y-by-0.5) > 1e-6 {
		return ActionForward, nil // between block centres
	}
	heading := int(math.Round(a.angle/(math.Pi/2))) & 3 // 0 +x, 1 +y, 2 −x, 3 −y
	dirs := [4][2]int{{1, 0}, {0, 1}, {-1, 0}, {0, -1}}
	isOpen := func(k int) bool { return g.at(int(bx)+dirs[k&3][0], int(by)+dirs[k&3][1]) == 0 }
	var sides []int // relative turns: −1 left (angle decreases), +1 right
	for _, r := range []int{-1, 1} {
		if isOpen(heading + r) {
			sides = append(sides, r)
		}
	}
	turn := 0
	switch {
	case isOpen(heading) && (len(sides) == 0 || rng.Float64() < m.cfg.PForward):
		return ActionForward, nil
	case len(sides) > 0:
		turn = sides[rng.IntN(len(sides))]
	default:
		turn = 2 // dead end: turn around, either way
		if rng.IntN(2) == 0 {
			turn = -2
		}
	}
	act := ActionRight
	if turn < 0 {
		act, turn = ActionLeft, -turn
	}
	plan = make([]int, turn*k+1)
	for i := range plan {
		plan[i] = act
	}
	plan[turn*k] = ActionForward // then leave the centre in the chosen (open) direction
	return plan[0], plan[1:]
}

// snap removes the rounding drift of the corridor policy: positions to quarter-block multiples
// of the step grid and headings to multiples of the turn.
func snap(a agent, turn float64) agent {
	a.x = math.Round(a.x*1e6) / 1e6
	a.y = math.Round(a.y*1e6) / 1e6
	a.angle = math.Round(a.angle/turn) * turn
	return a
}

// policy repeats the previous action with probability Persistence, else draws forward with
// probability PForward and left/right otherwise; a blocked forward becomes a turn (the current
// one, or a random side).
func (m *Maze) policy(rng *rand.Rand, g *grid, a agent, prev int) int {
	act := prev
	if rng.Float64() >= m.cfg.Persistence {
		u := rng.Float64()
		switch {
		case u < m.cfg.PForward:
			act = ActionForward
		case u < m.cfg.PForward+(1-m.cfg.PForward)/2:
			act = ActionLeft
		default:
			act = ActionRight
		}
	}
	if act == ActionForward && m.blocked(g, a) {
		if prev != ActionForward {
			return prev // keep turning the same way
		}
		return ActionLeft + rng.IntN(2)
	}
	return act
}

const agentRadius = 0.2

func (m *Maze) blocked(g *grid, a agent) bool {
	nx := a.x + math.Cos(a.angle)*m.cfg.Step
	ny := a.y + math.Sin(a.angle)*m.cfg.Step
	for _, d := range [][2]float64{{agentRadius, 0}, {-agentRadius, 0}, {0, agentRadius}, {0, -agentRadius}} {
		if g.at(int(math.Floor(nx+d[0])), int(math.Floor(ny+d[1]))) != 0 {
			return true
		}
	}
	return false
}

func (m *Maze) act(g *grid, a agent, act int) agent {
	switch act {
	case ActionLeft:
		a.angle -= m.cfg.Turn
	case ActionRight:
		a.angle += m.cfg.Turn
	default:
		if !m.blocked(g, a) {
			a.x += math.Cos(a.angle) * m.cfg.Step
			a.y += math.Sin(a.angle) * m.cfg.Step
		}
	}
	return a
}

// draw ray-casts one frame into px ([3, h, w]): one DDA ray per column, walls shaded by type,
// side, a brick texture and distance fog; a sky gradient above and a floor gradient below.
func (m *Maze) draw(g *grid, a agent, h, w int, px []float64) {
	plane := math.Tan(m.cfg.FOV / 2)
	dirX, dirY := math.Cos(a.angle), math.Sin(a.angle)
	// The camera trails the agent by CameraBack blocks (inside the agent's block: it stays in
	// free space), so that a turn at a block centre shows the corridor, not a wall at arm's length.
	a.x -= dirX * m.cfg.CameraBack
	a.y -= dirY * m.cfg.CameraBack
	plX, plY := -dirY*plane, dirX*plane
	wallH := m.cfg.WallHeight
	if wallH == 0 {
		wallH = 1
	}
	hw := h * w
	for col := 0; col < w; col++ {
		camX := 2*(float64(col)+0.5)/float64(w) - 1
		rx, ry := dirX+plX*camX, dirY+plY*camX
		mapX, mapY := int(math.Floor(a.x)), int(math.Floor(a.y))
		ddx, ddy := math.Abs(1/rx), math.Abs(1/ry)
		stepX, stepY := 1, 1
		sideX, sideY := (float64(mapX)+1-a.x)*ddx, (float64(mapY)+1-a.y)*ddy
		if rx < 0 {
			stepX, sideX = -1, (a.x-float64(mapX))*ddx
		}
		if ry < 0 {
			stepY, sideY = -1, (a.y-float64(mapY))*ddy
		}
		side := 0
		var wall uint8
		for i := 0; i < 4*g.n && wall == 0; i++ {
			if sideX < sideY {
				sideX += ddx
				mapX += stepX
				side = 0
			} else {
				sideY += ddy
				mapY += stepY
				side = 1
			}
			wall = g.at(mapX, mapY)
		}
		dist := sideX - ddx
		if side == 1 {
			dist = sideY - ddy
		}
		dist = math.Max(dist, 1e-3)
		// Where along the wall the ray hit, for the texture.
		wallX := a.y + dist*ry
		if side == 1 {
			wallX = a.x + dist*rx
		}
		wallX -= math.Floor(wallX)
		lineH := wallH * float64(h) / dist
		top := (float64(h) - lineH) / 2
		base := wallPalette[(int(wall)-1)%len(wallPalette)]
		shade := 1.0
		if side == 1 {
			shade = 0.7
		}
		fog := math.Exp(-m.cfg.Fog * dist)
		vertical := wallX*2 - math.Floor(wallX*2) // for the vertical mortar joints
		for row := 0; row < h; row++ {
			y := float64(row) + 0.5
			i := row*w + col
			switch {
			case y < top: // sky: light blue to white towards the horizon
				f := y / (float64(h) / 2)
				px[i], px[hw+i], px[2*hw+i] = 0.35+0.5*f, 0.55+0.35*f, 0.95
			case y > top+lineH: // floor: checkered blocks (motion cue), lighter towards the viewer
				f := (y - float64(h)/2) / (float64(h) / 2)
				rowDist := wallH * (float64(h) / 2) / (y - float64(h)/2) // the camera at half the walls' height
				check := 1.0
				if (int(a.x+rowDist*rx)+int(a.y+rowDist*ry))%2 == 0 {
					check = 0.8
				}
				px[i], px[hw+i], px[2*hw+i] = (0.25+0.3*f)*check, (0.22+0.25*f)*check, (0.18+0.2*f)*check
			case m.cfg.Texture == "panels": // flat panel, a dark seam at each block edge and a top band
				tex := shade * fog
				if wallX < 0.06 || wallX > 0.94 || (y-top)/lineH < 0.08 {
					tex *= 0.45
				}
				px[i], px[hw+i], px[2*hw+i] = base[0]*tex, base[1]*tex, base[2]*tex
			default: // wall with a brick texture: mortar every quarter block, joints staggered
				v4 := (y - top) / lineH * 4
				course := int(v4)
				joint := vertical
				if course%2 == 1 {
					joint += 0.5
					if joint >= 1 {
						joint--
					}
				}
				tex := shade * fog
				if v4-float64(course) < 0.08 || joint < 0.06 {
					tex *= 0.55
				}
				px[i], px[hw+i], px[2*hw+i] = base[0]*tex, base[1]*tex, base[2]*tex
			}
		}
	}
}
