package uitest

func closeBrowser() {}
