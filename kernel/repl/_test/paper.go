// The paper's experiments are one name away: list them and run an analytic one.
len(paper.Experiments)
e, _ := paper.ByName("eqm_weighting")
r, err := e.Run(context.Background(), paper.Config{Quick: true})
fmt.Println(r.Name, len(r.Numbers), err)
_, err = paper.ByName("nosuch")
err != nil

// Output:
// 21
// eqm_weighting 4 <nil>
// true
