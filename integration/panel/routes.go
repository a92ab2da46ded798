package panel

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"slices"
	"strconv"

	"github.com/ckptdev/ckpt/fault"
	"github.com/ckptdev/ckpt/integration/api"
)

// maxBody bounds a request's JSON body.
const maxBody = 1 << 20

// RunView is GET /api/run: everything the run view shows.
type RunView struct {
	Run     api.RunSummary `json:"run"`
	Diff    api.RunDiff    `json:"diff"`
	Calls   []api.ToolCall `json:"tool_calls"`
	Reviews []api.Review   `json:"reviews"`
	// Pending are the files open tool calls have named (an edit tool's
	// file_path) but not changed yet.
	Pending []Pending `json:"pending"`
}

// Pending is a file a tool call has started on.
type Pending struct {
	Path       string `json:"path"`
	ToolCallID string `json:"tool_call_id"`
	Command    string `json:"command"`
}

// workspaceRoute is a route answering for one workspace (?ws=ROOT, or "ws"
// in the body of a POST).
type workspaceRoute func(ctx context.Context, ws Workspace, r *http.Request) (any, error)

func (p *Panel) routes(mux *http.ServeMux) {
	mux.HandleFunc("GET /{$}", p.serveIndex)
	mux.Handle("GET /assets/", p.assets())
	mux.HandleFunc("GET /api/workspaces", func(w http.ResponseWriter, r *http.Request) {
		writeJSON(w, http.StatusOK, map[string][]string{"workspaces": p.src.Roots()})
	})
	mux.HandleFunc("GET /api/events", p.serveEvents)
	reads := map[string]workspaceRoute{
		"/api/status":       func(ctx context.Context, ws Workspace, r *http.Request) (any, error) { return ws.Status(ctx) },
		"/api/runs":         func(ctx context.Context, ws Workspace, r *http.Request) (any, error) { return ws.Runs(ctx) },
		"/api/checkpoints":  getCheckpoints,
		"/api/run":          getRun,
		"/api/run/patch":    getRunPatch,
		"/api/history":      getHistory,
		"/api/version-diff": getVersionDiff,
		"/api/drift": func(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
			return ws.Diff(ctx, api.DiffRequest{Patch: true})
		},
	}
	for path, fn := range reads {
		mux.Handle("GET "+path, p.serve(fn, false))
	}
	writes := map[string]workspaceRoute{
		"/api/restore": postRestore,
		"/api/revert":  postRevert,
		"/api/undo":    postUndo,
		"/api/review":  postReview,
	}
	for path, fn := range writes {
		mux.Handle("POST "+path, p.serve(fn, path != "/api/review"))
		mux.HandleFunc("GET "+path, func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Allow", "POST")
			writeError(w, http.StatusMethodNotAllowed, path+" changes state: POST it")
		})
	}
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, "no such page or route")
	})
}

// serve answers a workspace route. A restoring route holds the
// workspace's in-flight mark (a second one meanwhile gets 409), unless it
// is a dry run.
func (p *Panel) serve(fn workspaceRoute, restoring bool) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		root := r.URL.Query().Get("ws")
		if r.Method == http.MethodPost {
			if err := readBody(r); err != nil {
				writeError(w, http.StatusBadRequest, err.Error())
				return
			}
			root = bodyOf(r).WS
		}
		ws, ok := p.src.Workspace(root)
		if !ok {
			writeError(w, http.StatusNotFound, fmt.Sprintf("ckptd does not serve the workspace %q", root))
			return
		}
		if restoring && !bodyOf(r).DryRun {
			if !p.begin(root) {
				writeError(w, http.StatusConflict, "a restore of this workspace is in flight; try again when it is done")
				return
			}
			defer p.end(root)
		}
		w.Header().Set("Cache-Control", "no-store")
		// An action, once started, finishes even if the page goes away.
		ctx := r.Context()
		if r.Method == http.MethodPost {
			ctx = context.WithoutCancel(ctx)
		}
		v, err := fn(ctx, ws, r)
		if err != nil {
			writeError(w, api.StatusOf(err), err.Error())
			return
		}
		writeJSON(w, http.StatusOK, v)
	})
}

// postBody is the body of every POST: the workspace, and the action's
// fields (read again by the route into its own request type).
type postBody struct {
	WS     string `json:"ws"`
	DryRun bool   `json:"dry_run"`
	raw    []byte
}

type bodyKey struct{}

func readBody(r *http.Request) error {
	raw, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return err
	}
	if len(raw) > maxBody {
		return errors.New("request body too large")
	}
	b := &postBody{raw: raw}
	if err := json.Unmarshal(raw, b); err != nil {
		return fmt.Errorf("malformed JSON body: %w", err)
	}
	*r = *r.WithContext(context.WithValue(r.Context(), bodyKey{}, b))
	return nil
}

func bodyOf(r *http.Request) *postBody {
	if b, ok := r.Context().Value(bodyKey{}).(*postBody); ok {
		return b
	}
	return &postBody{}
}

// decode reads the POST body into a T.
func decode[T any](r *http.Request) (T, error) {
	var v T
	if err := json.Unmarshal(bodyOf(r).raw, &v); err != nil {
		return v, fault.Invalidf("malformed JSON body: %w", err)
	}
	return v, nil
}

func writeJSON(w http.ResponseWriter, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		writeError(w, http.StatusInternalServerError, err.Error())
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func writeError(w http.ResponseWriter, code int, msg string) {
	b, _ := json.Marshal(map[string]string{"error": msg})
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(append(b, '\n'))
}

func getCheckpoints(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	q := r.URL.Query()
	n := 0
	if s := q.Get("n"); s != "" {
		var err error
		if n, err = strconv.Atoi(s); err != nil || n < 0 || n > 10000 {
			return nil, fault.Invalidf("n=%q is not a count up to 10000", s)
		}
	}
	return ws.Checkpoints(ctx, q.Get("before"), n)
}

func runOf(r *http.Request) api.RunRequest {
	q := r.URL.Query()
	return api.RunRequest{Session: q.Get("session"), Run: q.Get("run")}
}

func getRun(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	req := runOf(r)
	d, err := ws.RunDiff(ctx, req)
	if err != nil {
		return nil, err
	}
	v := RunView{Diff: d, Pending: []Pending{}}
	runs, err := ws.Runs(ctx)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(runs.Runs, func(rs api.RunSummary) bool { return rs.SessionID == req.Session && rs.RunID == req.Run })
	if i < 0 {
		return nil, fault.Invalidf("no run %s/%s", req.Session, req.Run)
	}
	v.Run = runs.Runs[i]
	calls, err := ws.ToolCalls(ctx, req)
	if err != nil {
		return nil, err
	}
	v.Calls = calls.Calls
	for _, c := range calls.Calls {
		p := ws.PendingPath(c.Command)
		if c.Open && p != "" && !slices.ContainsFunc(c.Changes, func(ch api.Change) bool { return ch.Path == p }) {
			v.Pending = append(v.Pending, Pending{Path: p, ToolCallID: c.ToolCallID, Command: c.Command})
		}
	}
	rv, err := ws.Reviews(ctx, req.Session, req.Run)
	v.Reviews = rv.Reviews
	return v, err
}

// getRunPatch is the patches of a run: of one file (path=), of one tool
// call (call=), or of every file.
func getRunPatch(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	req := runOf(r)
	q := r.URL.Query()
	if call := q.Get("call"); call != "" {
		req.Patch = true
		calls, err := ws.ToolCalls(ctx, req)
		if err != nil {
			return nil, err
		}
		for _, c := range calls.Calls {
			if c.ToolCallID == call {
				return api.DiffResult{CheckpointID: "", PrevCheckpointID: c.CheckpointID, Files: c.Changes}, nil
			}
		}
		return nil, fault.Invalidf("no tool call %s in run %s/%s", call, req.Session, req.Run)
	}
	d, err := ws.RunDiff(ctx, req)
	if err != nil {
		return nil, err
	}
	dr := api.DiffRequest{From: d.PrevCheckpointID, To: d.CheckpointID, Patch: true}
	if p := q.Get("path"); p != "" {
		dr.Paths = []string{p}
	}
	return ws.Diff(ctx, dr)
}

func getHistory(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	return ws.History(ctx, api.HistoryRequest{Path: r.URL.Query().Get("path")})
}

func getVersionDiff(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	q := r.URL.Query()
	return ws.VersionDiff(ctx, api.VersionDiffRequest{Path: q.Get("path"), From: q.Get("from"), To: q.Get("to")})
}

func postRestore(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	req, err := decode[api.RestoreRequest](r)
	if err != nil {
		return nil, err
	}
	if req.ID == "" {
		return nil, fault.Invalidf("checkpoint_id is required")
	}
	return ws.Restore(ctx, req)
}

func postRevert(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	req, err := decode[api.RevertRequest](r)
	if err != nil {
		return nil, err
	}
	return ws.Revert(ctx, req)
}

func postUndo(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	return ws.Undo(ctx, api.RestoreRequest{DryRun: bodyOf(r).DryRun})
}

func postReview(ctx context.Context, ws Workspace, r *http.Request) (any, error) {
	req, err := decode[api.ReviewRequest](r)
	if err != nil {
		return nil, err
	}
	return ws.Review(ctx, req)
}
