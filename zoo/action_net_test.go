package zoo

import (
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// The action net committed in action-net/ (the features of every committed paper-recipe
// result's FVD and action agreement; README.md there) is the paper recipe's: the paper zoo
// takes it (its configuration hash), its weights have the digest the README names, it
// classifies the recipe's validation transitions as its card says, and every committed result
// names an action net of that configuration.
func TestCommittedActionNet(t *testing.T) {
	z := &Zoo{Dir: ".", Recipe: Recipes[DefaultRecipe]} // its action net is ./action-net, the committed one
	card, err := z.Card("action-net")
	if err != nil {
		t.Fatalf("the paper zoo does not take the committed action net: %v", err)
	}
	digest, err := z.ActionNetDigest()
	if err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(filepath.Join("action-net", "README.md"))
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(readme), "`"+digest+"`") {
		t.Errorf("action-net/README.md does not name the weights' digest %s", digest)
	}
	net, err := z.LoadActionNet()
	if err != nil {
		t.Fatal(err)
	}
	_, val, err := z.Recipe.actionNetData()
	if err != nil {
		t.Fatal(err)
	}
	acc, err := net.Accuracy(val, actionNetValClips) // as buildActionNet measures it for the card
	if err != nil {
		t.Fatal(err)
	}
	// The same weights on the same transitions: equal, up to a transition or two that another
	// CPU's float rounding may flip (128 clips × 7 transitions).
	if want := card.Metrics["val_accuracy"]; math.Abs(acc-want) > 2.0/896 {
		t.Errorf("validation accuracy %.5f, its card says %.5f", acc, want)
	}
	results, err := filepath.Glob(filepath.Join("..", "results", "*", "results.json"))
	if err != nil || len(results) == 0 {
		t.Fatalf("no committed results found (%v)", err)
	}
	named := 0
	for _, path := range results {
		b, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var res struct {
			Models map[string]string `json:"models"`
		}
		if err := json.Unmarshal(b, &res); err != nil {
			t.Fatalf("%s: %v", path, err)
		}
		line, ok := res.Models["action-net"]
		if !ok {
			continue
		}
		named++
		if !strings.Contains(line, "config "+card.Hash+",") {
			t.Errorf("%s names another action net (%q) than the committed one (config %s)", path, line, card.Hash)
		}
	}
	if named == 0 {
		t.Errorf("no committed result names its action net")
	}
}
