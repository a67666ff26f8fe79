package browser

import (
	"bufio"
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"sync"
	"time"
)

// Page is one tab of a headless Chromium driven over the DevTools protocol on a pipe
// (--remote-debugging-pipe: commands as JSON on the browser's fd 3, replies on its fd 4, each
// message ended by a NUL byte), so a test can load a page, run script in it and wait for what it
// shows, as a reader would in a browser — with no websocket client and no network.
type Page struct {
	cmd     *exec.Cmd
	in      *os.File      // our end of the browser's fd 3
	out     *bufio.Reader // our end of the browser's fd 4
	outFile *os.File
	session string
	next    int
	mu      sync.Mutex // one command at a time
	stderr  strings.Builder
}

// Open starts headless Chromium with a fresh profile in userDataDir, opens url in a new tab with
// a width×height viewport and returns it. Close ends the browser.
func Open(ctx context.Context, userDataDir, url string, width, height int) (*Page, error) {
	bin, err := exec.LookPath("chromium")
	if err != nil {
		return nil, fmt.Errorf("chromium not found: run `make browser` (apt-get install chromium): %w", err)
	}
	inR, inW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	outR, outW, err := os.Pipe()
	if err != nil {
		return nil, err
	}
	p := &Page{in: inW, out: bufio.NewReader(outR), outFile: outR}
	p.cmd = exec.CommandContext(ctx, bin, "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
		"--user-data-dir="+userDataDir, "--hide-scrollbars", fmt.Sprintf("--window-size=%d,%d", width, height),
		"--remote-debugging-pipe", "about:blank")
	p.cmd.ExtraFiles = []*os.File{inR, outW} // the browser's fd 3 and fd 4
	p.cmd.Stderr = &p.stderr
	if err := p.cmd.Start(); err != nil {
		return nil, err
	}
	inR.Close()
	outW.Close()
	var target struct {
		TargetID string `json:"targetId"`
	}
	if err := p.call("Target.createTarget", map[string]any{"url": url}, &target); err != nil {
		p.Close()
		return nil, err
	}
	var attached struct {
		SessionID string `json:"sessionId"`
	}
	if err := p.call("Target.attachToTarget", map[string]any{"targetId": target.TargetID, "flatten": true}, &attached); err != nil {
		p.Close()
		return nil, err
	}
	p.session = attached.SessionID
	if err := p.call("Emulation.setDeviceMetricsOverride", map[string]any{"width": width, "height": height, "deviceScaleFactor": 1, "mobile": false}, nil); err != nil {
		p.Close()
		return nil, err
	}
	return p, nil
}

// call sends one DevTools command (to the page once attached) and decodes its result into out,
// skipping the events that arrive before the reply.
func (p *Page) call(method string, params any, out any) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.next++
	msg := map[string]any{"id": p.next, "method": method, "params": params}
	if p.session != "" {
		msg["sessionId"] = p.session
	}
	b, err := json.Marshal(msg)
	if err != nil {
		return err
	}
	if _, err := p.in.Write(append(b, 0)); err != nil {
		return fmt.Errorf("browser: %s: %w\n%s", method, err, p.stderr.String())
	}
	for {
		raw, err := p.out.ReadBytes(0)
		if err != nil {
			return fmt.Errorf("browser: %s: reading the reply: %w\n%s", method, err, p.stderr.String())
		}
		var reply struct {
			ID     int             `json:"id"`
			Result json.RawMessage `json:"result"`
			Error  *struct {
				Message string `json:"message"`
			} `json:"error"`
		}
		if err := json.Unmarshal(raw[:len(raw)-1], &reply); err != nil {
			return fmt.Errorf("browser: %s: %w", method, err)
		}
		if reply.ID != p.next {
			continue // an event, or a reply to another command
		}
		if reply.Error != nil {
			return fmt.Errorf("browser: %s: %s", method, reply.Error.Message)
		}
		if out == nil {
			return nil
		}
		return json.Unmarshal(reply.Result, out)
	}
}

// Eval evaluates a JavaScript expression in the page (awaiting a promise) and decodes its value
// (JSON-serialisable) into out, which may be nil; an exception thrown is the error.
func (p *Page) Eval(expr string, out any) error {
	var res struct {
		Result struct {
			Value json.RawMessage `json:"value"`
		} `json:"result"`
		ExceptionDetails *struct {
			Text      string `json:"text"`
			Exception struct {
				Description string `json:"description"`
			} `json:"exception"`
		} `json:"exceptionDetails"`
	}
	if err := p.call("Runtime.evaluate", map[string]any{"expression": expr, "returnByValue": true, "awaitPromise": true}, &res); err != nil {
		return err
	}
	if e := res.ExceptionDetails; e != nil {
		return fmt.Errorf("browser: %s: %s", e.Text, e.Exception.Description)
	}
	if out == nil || len(res.Result.Value) == 0 {
		return nil
	}
	return json.Unmarshal(res.Result.Value, out)
}

// WaitFor evaluates a boolean JavaScript expression every interval until it is true, an
// evaluation fails for the last time, or ctx ends; the error then says what the page last
// returned for the expression.
func (p *Page) WaitFor(ctx context.Context, expr string, interval time.Duration) error {
	var last error
	for {
		var ok bool
		last = p.Eval(expr, &ok)
		if last == nil && ok {
			return nil
		}
		select {
		case <-ctx.Done():
			if last == nil {
				last = errors.New("still false")
			}
			return fmt.Errorf("browser: waiting for %s: %w (%v)", expr, ctx.Err(), last)
		case <-time.After(interval):
		}
	}
}

// Screenshot is a PNG of the tab's viewport.
func (p *Page) Screenshot() ([]byte, error) {
	var shot struct {
		Data string `json:"data"`
	}
	if err := p.call("Page.captureScreenshot", map[string]any{"format": "png"}, &shot); err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(shot.Data)
}

// Close ends the browser.
func (p *Page) Close() {
	p.in.Close()
	if p.cmd.Process != nil {
		_ = p.cmd.Process.Kill()
		_ = p.cmd.Wait()
	}
	p.outFile.Close()
}
